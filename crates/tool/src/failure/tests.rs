use super::*;
use crate::approval::ApprovalMode;
use pretty_assertions::assert_eq;

fn tool() -> String {
    "weather".to_owned()
}

fn server() -> String {
    "forecasts".to_owned()
}

fn request() -> String {
    "GET https://api.example/v1".to_owned()
}

/// One failure of each shape, as the sources make them.
fn every_failure() -> Vec<CallFailure> {
    let verdict = Verdict {
        mode: ApprovalMode::Ask,
        rule: "tools.weather.approval".into(),
        by_rule: false,
    };
    let worker = |failure| CallFailure::Worker {
        tool: tool(),
        failure,
    };
    let mcp = |failure| CallFailure::Server {
        tool: tool(),
        server: server(),
        failure,
    };
    let program = |failure| CallFailure::Program {
        program: "ls".into(),
        failure,
    };
    let http = |failure| CallFailure::Http {
        request: request(),
        failure,
    };
    vec![
        CallFailure::BadArguments {
            tool: None,
            why: "missing required parameter \"city\"".into(),
        },
        CallFailure::NotApproved {
            tool: tool(),
            refusal: Refusal::Unanswered {
                verdict,
                why: "nobody is there to ask".into(),
            },
        },
        CallFailure::SandboxedCaller {
            tool: tool(),
            sandbox: "python.sandbox".into(),
            why: "it runs in no sandbox".into(),
        },
        CallFailure::NotCallable {
            error: CallError::UnknownTool("wether".into()),
            offered: Some(vec!["weather".into(), "clock".into()]),
        },
        CallFailure::NotOffered {
            tool: "mark".into(),
            because: Unoffered::NotShown(vec!["clock".into(), "weather".into()]),
        },
        CallFailure::TimedOut {
            subject: Subject::Tool(tool()),
            after: Duration::from_millis(1500),
            then: AfterTimeout::ServerCancelled { server: server() },
        },
        CallFailure::TimedOut {
            subject: Subject::Program("sleep".into()),
            after: Duration::from_secs(2),
            then: AfterTimeout::Killed,
        },
        CallFailure::Relayed {
            kind: FailureKind::Timeout,
            message: "late".into(),
        },
        worker(WorkerFailure::Refused {
            message: "missing argument".into(),
            invalid_params: true,
        }),
        worker(WorkerFailure::ReplyTooLarge {
            total: 2048,
            limit: 1024,
        }),
        worker(WorkerFailure::Crashed {
            how: "the worker was killed by signal 24".into(),
            breach: Some(LimitBreach {
                sandbox: "python.sandbox".into(),
                limit: SandboxLimit::CpuSeconds(30),
            }),
        }),
        worker(WorkerFailure::Crashed {
            how: "the worker was killed by signal 25".into(),
            breach: Some(LimitBreach {
                sandbox: "tools.weather.sandbox".into(),
                limit: SandboxLimit::FileSizeMb(8),
            }),
        }),
        mcp(ServerFailure::Refused {
            message: "no such city".into(),
            invalid_params: false,
        }),
        mcp(ServerFailure::Died {
            death: "it exited with status 1".into(),
        }),
        mcp(ServerFailure::Lost {
            cause: "the request was cancelled".into(),
        }),
        program(ProgramFailure::Failed {
            ended: Termination::Status(2),
            stderr: "ls: no such file".into(),
        }),
        program(ProgramFailure::Failed {
            ended: Termination::Signal(9),
            stderr: String::new(),
        }),
        http(HttpFailure::RedirectElsewhere {
            to: "https://elsewhere.example/".into(),
            origin: "https://api.example".into(),
        }),
        http(HttpFailure::ErrorStatus {
            status: "302 Found".into(),
            redirect: Some("/v2".into()),
            body: "moved".into(),
        }),
        http(HttpFailure::TooManyRedirects { max: 10 }),
    ]
}

#[test]
fn each_failure_reads_as_one_sentence_of_its_kind() {
    let lines: Vec<String> = every_failure()
        .into_iter()
        .map(|failure| format!("{}: {failure}", failure.kind().as_str()))
        .collect();
    insta::assert_snapshot!(lines.join("\n"), @r#"
    bad_parameters: missing required parameter "city"
    denied: weather was not run: it needs approval (tools.weather.approval is ask) and nobody is there to ask
    denied: sandbox: tool "weather" can't be called from inside python.sandbox: it runs in no sandbox; name it in python.sandbox.calls to allow the call
    unavailable: unknown tool "wether"; the available tools are: weather, clock
    unavailable: tool "mark" was not offered in this round: it is not among the tools shown (clock, weather)
    timeout: tool "weather" timed out after 1.5s; mcp server "forecasts" was sent notifications/cancelled
    timeout: "sleep" timed out after 2s; it was killed
    timeout: late
    bad_parameters: tool "weather": missing argument
    output_too_large: tool "weather": its reply of 2048 bytes is over the 1024 bytes the host reads
    crashed: sandbox: CPU time past python.sandbox.cpu_seconds (30 s, a worker's in all): tool "weather" crashed: the worker was killed by signal 24; a fresh worker will serve later calls
    to allow it, set tools.weather.sandbox: {cpu_seconds: 60} (a sandbox of the tool's own; its other keys come from python.sandbox)
    crashed: sandbox: a file written past tools.weather.sandbox.file_size_mb (8 MB): tool "weather" crashed: the worker was killed by signal 25; a fresh worker will serve later calls
    to allow it, set tools.weather.sandbox.file_size_mb: 16
    tool_error: tool "weather": mcp server "forecasts" refused the call: no such city
    crashed: tool "weather": mcp server "forecasts" died during the call (it exited with status 1); it will be restarted on the next call
    crashed: tool "weather": mcp server "forecasts": the request was cancelled
    tool_error: "ls" exited with status 2: ls: no such file
    crashed: "ls" was killed by signal 9
    denied: GET https://api.example/v1: redirected to https://elsewhere.example/, another host; http.redirect: same-host follows only redirects to https://api.example
    tool_error: GET https://api.example/v1 answered 302 Found, a redirect to /v2 that http.redirect: none does not follow: moved
    tool_error: GET https://api.example/v1: more than 10 redirects
    "#);
}

#[test]
fn a_failed_result_carries_the_kind_and_the_whole_sentence() {
    let failure = CallFailure::Worker {
        tool: tool(),
        failure: WorkerFailure::Crashed {
            how: "the worker exited with status 3".into(),
            breach: None,
        },
    };
    assert_eq!(failure.hint(), None);
    let result = ToolResult::from(failure);
    assert_eq!(result.failure_kind(), Some(FailureKind::Crashed));
    assert_eq!(
        result.error,
        "tool \"weather\" crashed: the worker exited with status 3; a fresh worker will serve later calls"
    );
}

#[test]
fn a_hint_is_the_end_of_its_sentence() {
    for failure in every_failure() {
        if let Some(hint) = failure.hint() {
            assert!(failure.to_string().ends_with(&hint), "{failure}");
        }
    }
    let unknown = CallFailure::from(CallError::UnknownTool("x".into()));
    assert_eq!(unknown.hint(), None);
    assert_eq!(unknown.to_string(), "unknown tool \"x\"");
}
