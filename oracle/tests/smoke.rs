//! The two reference releases are the ones this crate means to check against.

#[test]
fn the_reference_releases_read_their_own_schemas() {
    assert_eq!(ref5_runtime::NX_IR_SCHEMA_VERSION, 5);
    assert_eq!(ref6_runtime::NX_IR_SCHEMA_VERSION, 6);
    assert_eq!(ref5_runtime::NX_IR_RUNTIME_ABI, ref6_runtime::NX_IR_RUNTIME_ABI);
}
