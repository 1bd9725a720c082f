fn main() {
    // The migrations are embedded at compile time (src/db/mod.rs); a new file in
    // migrations/ must rebuild the crate even when no Rust source changed.
    println!("cargo:rerun-if-changed=migrations");
}
