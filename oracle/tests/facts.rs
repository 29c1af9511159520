//! The schema 6 facts nx-ir-core states as constants, against the reference crates that define
//! them: kind numbers, flag bits, feature names, and the standard math and colour operations
//! with their arities.

use nx_ir_core::model::kinds;

#[test]
fn kind_numbers_and_flags_are_the_references() {
    use ref6_ir::kinds as theirs;
    assert_eq!(i64::from(kinds::node::STANDARD_MATH), theirs::node::STANDARD_MATH);
    assert_eq!(i64::from(kinds::node::STANDARD_COLOR), theirs::node::STANDARD_COLOR);
    assert_eq!(i64::from(kinds::node::CHECK), theirs::node::CHECK);
    assert_eq!(i64::from(kinds::node::INTERVAL), theirs::node::INTERVAL);
    assert_eq!(i64::from(kinds::ty::CONSTRAINED), theirs::ty::CONSTRAINED);
    assert_eq!(i64::from(kinds::ty::CONSTRAINED_LOW_EXCLUSIVE), theirs::ty::CONSTRAINED_LOW_EXCLUSIVE);
    assert_eq!(i64::from(kinds::ty::CONSTRAINED_HIGH_EXCLUSIVE), theirs::ty::CONSTRAINED_HIGH_EXCLUSIVE);
    assert_eq!(kinds::SCHEMA_5, ref5_ir::NX_IR_SCHEMA_VERSION);
    assert_eq!(kinds::SCHEMA_6, ref6_ir::NX_IR_SCHEMA_VERSION);
    assert_eq!(kinds::RUNTIME_ABI, ref6_ir::NX_IR_RUNTIME_ABI);
}

#[test]
fn the_schema_6_features_are_the_references() {
    assert_eq!(kinds::CONSTRAINTS_FEATURE, ref6_ir::NX_IR_REQUIRED_FEATURE_CONSTRAINTS_V1);
    assert_eq!(kinds::STANDARD_MATH_FEATURE, ref6_ir::NX_IR_REQUIRED_FEATURE_STANDARD_MATH_V1);
    assert_eq!(kinds::CONDITIONAL_PROPERTIES_FEATURE, ref6_ir::NX_IR_REQUIRED_FEATURE_CONDITIONAL_PROPERTIES_V1);
    let schema_5 = [
        ref5_ir::NX_IR_REQUIRED_FEATURE_UPDATE_RECORDS_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_PROPERTY_UNIONS_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_UPDATE_INTRINSICS_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_ACTION_HANDLERS_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_FUNCTION_VALUES_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_FUNCTION_REFERENCE_TYPE_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_RANGES_V1,
        ref5_ir::NX_IR_REQUIRED_FEATURE_OCCURRENCE_V1,
    ];
    assert_eq!(kinds::known_features(5), schema_5);
    assert_eq!(kinds::known_features(6)[..8], schema_5);
    // Each feature is accepted by its schema's runtime and (the new four) refused by 0.7's: an
    // image listing it is prepared, or refused `nx-ir-required-feature`.
    for schema in [5, 6] {
        for feature in kinds::KNOWN_FEATURES_6 {
            let mut module = nx_ir_core::prelude::prelude_model(schema).expect("the prelude");
            module.strings.push(feature.to_string());
            module.features = vec![module.strings.len() as u32 - 1];
            let image = nx_ir_core::writer::encode(&module);
            let refused = if schema == 5 {
                ref5_runtime::PreparedModule::prepare(image).err().map(|e| e.diagnostics[0].code)
            } else {
                ref6_runtime::PreparedModule::prepare(image).err().map(|e| e.diagnostics[0].code)
            };
            let known = kinds::known_features(schema).contains(&feature);
            assert_eq!(refused, (!known).then_some("nx-ir-required-feature"), "{feature} in schema {schema}");
        }
    }
}

#[test]
fn the_standard_operations_are_the_references() {
    let math: Vec<(i64, &str)> =
        kinds::STANDARD_MATH_OPERATIONS.iter().enumerate().map(|(code, name)| (code as i64, *name)).collect();
    assert_eq!(math, ref6_ir::kinds::standard_math::NAMES);
    assert_eq!(kinds::STANDARD_MATH_ARITIES, ref6_ir::kinds::standard_math::ARITIES);
    assert_eq!(kinds::STANDARD_COLOR_OPERATIONS, ref6_value::color::NAMES);
    let arities: Vec<usize> = kinds::STANDARD_COLOR_ARITIES.iter().map(|a| *a as usize).collect();
    assert_eq!(arities, ref6_value::color::ARITIES);
}
