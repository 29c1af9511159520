//! Comparing what a test computes with what the same test computes in another process: the
//! test binary runs itself again, for that one test, in a child.

/// Set in the child's environment.
const CHILD: &str = "NX_IR_CORE_TEST_CHILD";

/// In the test `test` (its full name, as `--exact` takes it), which computed `seen`: in the
/// parent, runs `test` again in a child process and fails unless the child computed the same;
/// in the child, prints `seen` for the parent to read.
pub fn same_in_a_child(test: &str, seen: &str) {
    let line = format!("seen in this process: {seen}");
    if std::env::var_os(CHILD).is_some() {
        println!("{line}");
        return;
    }
    let child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("the child runs");
    let out = String::from_utf8_lossy(&child.stdout);
    assert!(child.status.success(), "the child failed: {out}");
    assert!(out.contains(&line), "this process saw {seen}; the child's output: {out}");
}
