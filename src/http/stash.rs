//! Request guards and data guards in Rocket 0.5 cannot hand their error to a catcher, so
//! they leave it here, in the request's local cache, and the catcher renders it.

use std::sync::Mutex;

use rocket::request::Request;

use crate::error::AppError;

#[derive(Default)]
struct Stash(Mutex<Option<AppError>>);

pub fn stash(req: &Request<'_>, e: AppError) {
    let slot = req.local_cache(Stash::default);
    if let Ok(mut s) = slot.0.lock() {
        *s = Some(e);
    }
}

pub fn take(req: &Request<'_>) -> Option<AppError> {
    let slot = req.local_cache(Stash::default);
    slot.0.lock().ok().and_then(|mut s| s.take())
}
