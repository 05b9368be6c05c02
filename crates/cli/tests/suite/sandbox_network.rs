//! The sandbox's network rules, through the real binary (the scene is
//! `sandbox.rs`'s): a port outside the rule is not reached and the error
//! names the rule; and where the kernel can't enforce a sandbox, the tool
//! does not run unless the settings say to run it anyway.

use std::net::TcpListener;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::sandbox::{Scene, Wrong, sandbox_settings};

fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn was_reached(listener: &TcpListener) -> bool {
    match listener.accept() {
        Ok(_) => true,
        Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => false,
        Err(err) => panic!("accept: {err}"),
    }
}

/// `network: false` allows no TCP connection, a list of ports only those; a
/// port on the list connects.
#[test]
fn connecting_to_a_port_outside_the_network_rule_is_refused() {
    let (closed, closed_port) = listener();
    let (open, open_port) = listener();
    let scene = Scene::new(&sandbox_settings(true, "{network: false}"));
    let mut wrong = Wrong::default();
    let refused = |allowed: &str| {
        format!(
            "sandbox: connecting to port {closed_port} is outside python.sandbox.network ({allowed}) (execute() raised PermissionError: "
        )
    };
    let port = format!("port={closed_port}");

    let error = scene.refused("connect", &[&port]);
    wrong.begins("network: false", &error, &refused("no port"));
    assert!(
        !was_reached(&closed),
        "network: false: the port was reached"
    );
    scene.answers();

    scene.settings(&sandbox_settings(
        true,
        &format!("{{network: [{open_port}]}}"),
    ));
    let error = scene.refused("connect", &[&port]);
    wrong.begins(
        &format!("network: [{open_port}]"),
        &error,
        &refused(&format!("ports {open_port}")),
    );
    assert!(
        !was_reached(&closed),
        "network: [{open_port}]: the port was reached"
    );
    scene.answers();

    assert_eq!(
        scene.succeeds("connect", &[&format!("port={open_port}")]),
        "connected"
    );
    assert!(was_reached(&open), "the allowed port was not reached");
    wrong.none();
}

/// A listening socket is refused under a list of ports (they are for
/// connecting), and the refusal is not blamed on the connection the tool
/// made before to a port on the list.
#[test]
fn a_refused_listen_after_an_allowed_connect_is_not_called_a_connect() {
    let (_open, open_port) = listener();
    let scene = Scene::new(&sandbox_settings(
        true,
        &format!("{{network: [{open_port}]}}"),
    ));
    let error = scene.refused("listen_after_connect", &[&format!("port={open_port}")]);
    assert!(
        !error.contains(&format!("connecting to port {open_port} is outside")),
        "the allowed connection is named as the broken rule: {error}"
    );
    scene.answers();
}

/// Where the kernel has no Landlock (or no TCP rules for a network rule), a
/// sandboxed tool does not run, and says how to run it anyway; with
/// `if_unsupported: run` it runs under what the kernel can enforce, with a
/// warning.
#[test]
fn a_kernel_without_landlock_refuses_sandboxed_tools_unless_told_to_run() {
    let (_closed, closed_port) = listener();
    let scene = Scene::new(&sandbox_settings(true, r#"{read: ["."], write: [notes]}"#));
    let abi = |abi: &'static str| [("RIVERSE_LANDLOCK_ABI", abi)];
    let no_landlock = "python.sandbox: this kernel has no Landlock (or it is off), so the sandbox can't be enforced";
    let refused = format!(
        "{no_landlock}; set python.sandbox.if_unsupported: run to run the tool without what can't be enforced"
    );
    let ran = scene.riverse(&["call", "echo", "text=hi", "--json"], &abi("0"));
    assert_eq!(ran.exits(2).stdout, "");
    assert_eq!(
        ran.stderr,
        format!("riverse: unknown tool \"echo\"\n  python (python3) failed: {refused}\n")
    );
    let ran = scene.riverse(&["tools"], &abi("0"));
    assert!(ran.stdout.contains(&refused), "{ran:#?}");

    // Told to run: it runs, unsandboxed, with a warning.
    scene.settings(&sandbox_settings(
        true,
        r#"{read: ["."], write: [notes], if_unsupported: run}"#,
    ));
    let ran = scene.riverse(&["call", "echo", "text=hi"], &abi("0"));
    assert_eq!(ran.exits(0).stdout, "hi\n");
    assert!(
        ran.stderr.contains(&format!(
            "{no_landlock}; running without it (python.sandbox.if_unsupported: run)"
        )),
        "{ran:#?}"
    );

    // ABI 3 has file rules but no TCP rules: a network rule can't be held,
    scene.settings(&sandbox_settings(
        true,
        r#"{read: ["."], write: [notes], network: false}"#,
    ));
    let ran = scene.riverse(&["call", "echo", "text=hi"], &abi("3"));
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: unknown tool \"echo\"\n  python (python3) failed: python.sandbox: this kernel's Landlock (ABI 3) \
         has no TCP rules (ABI 4, Linux 6.7), so python.sandbox.network can't be enforced; \
         set python.sandbox.if_unsupported: run to run the tool without what can't be enforced\n"
    );
    // and told to run, the tool runs with what can be: the file rules but
    // not the network rule.
    scene.settings(&sandbox_settings(
        true,
        r#"{read: ["."], write: [notes], network: false, if_unsupported: run}"#,
    ));
    let settings_file = format!("{}/settings.yaml", scene.dir().display());
    let (code, result) = scene.call_with(&abi("3"), "write", &[&format!("path={settings_file}")]);
    assert_eq!(code, 1, "{result}");
    assert!(
        result["error"].as_str().unwrap().starts_with(&format!(
            "sandbox: writing {settings_file} is outside python.sandbox.write (execute() raised PermissionError: "
        )),
        "{result}"
    );
    let (code, result) = scene.call_with(&abi("3"), "connect", &[&format!("port={closed_port}")]);
    assert_eq!(
        (code, &result["data"]),
        (0, &json!("connected")),
        "{result}"
    );

    // A tool's own sandbox: that tool is not available; the others are.
    scene.settings("tools:\n  write:\n    sandbox: {write: [notes]}\n");
    let ran = scene.riverse(&["call", "write", "path=notes/x"], &abi("0"));
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: tool \"write\" is not available: tools.write.sandbox: this kernel has no Landlock (or it is off), \
         so the sandbox can't be enforced; \
         set tools.write.sandbox.if_unsupported: run to run the tool without what can't be enforced\n"
    );
    assert!(!scene.project.path().join("notes/x").exists());
    let ran = scene.riverse(&["call", "echo", "text=hi"], &abi("0"));
    assert_eq!(ran.exits(0).stdout, "hi\n");
}
