//! Points `cargo test` binaries at the libpython of the interpreter pyo3 was configured against.
fn main() {
    pyo3_build_config::add_libpython_rpath_link_args();
}
