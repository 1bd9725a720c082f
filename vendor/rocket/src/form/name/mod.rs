//! Types for field names, name keys, and key indices.

mod name;
mod view;
mod key;
mod buf;

pub use name::Name;
pub use view::NameView;
pub use key::Key;
pub use buf::NameBuf;
