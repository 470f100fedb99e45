//! The deployment files of docs/deploy/: the systemd unit passes `systemd-analyze verify` (with this build's `qr` as its program) and the HAProxy configuration passes `haproxy -c`.

use std::path::PathBuf;
use std::process::Command;

use qr_test_support::servers::skip;

fn deploy_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/deploy")
        .join(name)
}

/// Whether `program` runs (`flag` asks for its version).
fn available(program: &str, flag: &str) -> bool {
    Command::new(program).arg(flag).output().is_ok()
}

#[test]
fn the_systemd_unit_verifies_without_a_warning() {
    if !available("systemd-analyze", "--version") {
        skip(
            "the systemd unit check",
            "systemd-analyze",
            "apt-get install systemd",
        );
        return;
    }
    let unit = std::fs::read_to_string(deploy_file("qr.service")).unwrap();
    assert!(unit.contains("ExecStart=/usr/bin/qr serve"), "{unit}");
    // The unit names the packaged binary; verify checks that its program exists.
    let unit = unit.replace("/usr/bin/qr", env!("CARGO_BIN_EXE_qr"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qr.service");
    std::fs::write(&path, unit).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "systemd-analyze verify failed: {stderr}"
    );
    // Unknown or misspelt settings are only warnings: there must be none.
    assert!(
        stderr.trim().is_empty(),
        "systemd-analyze verify warned: {stderr}"
    );
}

#[test]
fn the_haproxy_configuration_is_valid() {
    if !available("haproxy", "-v") {
        skip(
            "the HAProxy configuration check",
            "haproxy",
            "apt-get install haproxy",
        );
        return;
    }
    let out = Command::new("haproxy")
        .arg("-c")
        .arg("-f")
        .arg(deploy_file("haproxy.cfg"))
        .env("QR_LB_LISTEN", "127.0.0.1:8000")
        .env("QR_SERVER_1", "10.0.0.1:8080")
        .env("QR_SERVER_2", "10.0.0.2:8080")
        .env("QR_SERVER_3", "10.0.0.3:8080")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "haproxy -c failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
