fn main() {
    // The cfgs pyo3 itself is built with (the Python version, the limited API), so that code
    // may use a C API macro exactly where pyo3-ffi defines it.
    pyo3_build_config::use_pyo3_cfgs();
}
