//! A failed call told in one sentence of the message's language: which tool
//! failed and why in a few words (it timed out, couldn't reach its service,
//! was refused, ...), never the raw exception a tool caught and returned.
//! The whole error stays in the call's record: `--json`, the page's card and
//! the log show it.
//!
//! A tool message carries the error as text only, so the reason is read from
//! the words the runtime and the common Python libraries use.

use super::replies::Language;

/// The most characters of a tool's own error an answer repeats.
const MAX_REASON_CHARS: usize = 80;

/// Why a call failed, as its answer says it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reason {
    TimedOut,
    /// A connection failed: no name resolution, nothing listening, no route.
    Unreachable,
    /// The system (or the sandbox) refused an operation.
    Refused,
    BadParameters,
    Crashed,
    /// The tool could not be started.
    Unavailable,
    TooLarge,
    /// A rule, a person or the call budget kept the call from running.
    NotRun,
    /// The tool's own error, shortened (see [`shorten`]); empty when
    /// nothing of it is worth repeating.
    Own(String),
}

/// Words that mark each reason, lowercase, checked in this order: a
/// sandbox's refusal of a connection is a refusal before it is a failed
/// connection, and a connection that timed out is a timeout.
const MARKERS: &[(&[&str], Reason)] = &[
    (
        &[
            "was not run",
            "was not offered",
            "実行されませんでした",
            "未执行",
        ],
        Reason::NotRun,
    ),
    (
        &[
            "parameter \"",
            "the arguments must be",
            "the arguments are not valid json",
            "arguments can't be read",
        ],
        Reason::BadParameters,
    ),
    (
        &[
            "sandbox:",
            "which may have refused it",
            "permission denied",
            "operation not permitted",
        ],
        Reason::Refused,
    ),
    (&["timed out", "timeout"], Reason::TimedOut),
    (
        &[
            "max retries exceeded",
            "nameresolutionerror",
            "failed to establish a new connection",
            "connection refused",
            "connection reset",
            "connectionerror",
            "proxyerror",
            "remote end closed connection",
            "name or service not known",
            "temporary failure in name resolution",
            "nodename nor servname",
            "getaddrinfo",
            "network is unreachable",
            "no route to host",
            "urlopen error",
            "can't reach",
            "cannot reach",
            "unreachable",
            "接続できません",
            "无法连接",
        ],
        Reason::Unreachable,
    ),
    (&["worker died", "crashed"], Reason::Crashed),
    (&["could not run"], Reason::Unavailable),
    (&["bytes the host reads"], Reason::TooLarge),
];

/// The answer's sentence for the failed call of `tool` whose result is
/// `content`.
pub(super) fn sentence(language: Language, tool: &str, content: &str) -> String {
    let reason = reason(error_of(content), language);
    let tool = tool.trim();
    match language {
        Language::English => english(tool, reason),
        Language::Japanese => japanese(tool, reason),
        Language::Chinese => chinese(tool, reason),
    }
}

fn english(tool: &str, reason: Reason) -> String {
    let subject = match tool {
        "" => "A tool".to_owned(),
        _ => format!("The {tool} tool"),
    };
    let predicate = match reason {
        Reason::TimedOut => "timed out".to_owned(),
        Reason::Unreachable => "couldn't reach the service it uses".to_owned(),
        Reason::Refused => "was refused permission".to_owned(),
        Reason::BadParameters => "couldn't use the parameters it was given".to_owned(),
        Reason::Crashed => "crashed".to_owned(),
        Reason::Unavailable => "couldn't be started".to_owned(),
        Reason::TooLarge => "gave a result too large to read".to_owned(),
        Reason::NotRun => "was not run".to_owned(),
        Reason::Own(reason) if reason.is_empty() => "failed".to_owned(),
        Reason::Own(reason) => format!("failed: {reason}"),
    };
    format!("{subject} {predicate}.")
}

fn japanese(tool: &str, reason: Reason) -> String {
    let subject = match tool {
        "" => "ツール".to_owned(),
        _ => format!("{tool} ツール"),
    };
    match reason {
        Reason::TimedOut => format!("{subject}は時間切れになりました。"),
        Reason::Unreachable => format!("{subject}は接続先に接続できませんでした。"),
        Reason::Refused => format!("{subject}は権限がなく拒否されました。"),
        Reason::BadParameters => format!("{subject}に渡したパラメーターが正しくありませんでした。"),
        Reason::Crashed => format!("{subject}は異常終了しました。"),
        Reason::Unavailable => format!("{subject}を起動できませんでした。"),
        Reason::TooLarge => format!("{subject}の結果が大きすぎて読み込めませんでした。"),
        Reason::NotRun => format!("{subject}は実行されませんでした。"),
        Reason::Own(reason) if reason.is_empty() => format!("{subject}が失敗しました。"),
        Reason::Own(reason) => format!("{subject}が失敗しました（{reason}）。"),
    }
}

fn chinese(tool: &str, reason: Reason) -> String {
    let subject = match tool {
        "" => "工具".to_owned(),
        _ => format!("{tool} 工具"),
    };
    match reason {
        Reason::TimedOut => format!("{subject}超时了。"),
        Reason::Unreachable => format!("{subject}无法连接到它使用的服务。"),
        Reason::Refused => format!("{subject}因权限不足被拒绝。"),
        Reason::BadParameters => format!("{subject}收到的参数不正确。"),
        Reason::Crashed => format!("{subject}异常退出了。"),
        Reason::Unavailable => format!("{subject}无法启动。"),
        Reason::TooLarge => format!("{subject}的结果太大，无法读取。"),
        Reason::NotRun => format!("{subject}没有执行。"),
        Reason::Own(reason) if reason.is_empty() => format!("{subject}执行失败。"),
        Reason::Own(reason) => format!("{subject}执行失败（{reason}）。"),
    }
}

/// The error in a failed call's content, without the sentence the agent
/// wraps it in (`crates/agent/src/turn/prompts.rs`, `tool_failed`, in each
/// language).
fn error_of(content: &str) -> &str {
    let content = content.trim();
    let wrappers = [
        ("tool ", " failed:"),
        ("ツール ", " は失敗しました:"),
        ("工具 ", " 执行失败："),
    ];
    wrappers
        .iter()
        .filter(|(head, _)| content.starts_with(head))
        .find_map(|(_, tail)| content.split_once(tail).map(|(_, error)| error.trim()))
        .unwrap_or(content)
}

/// Why the call that failed with `error` failed, told to a message in
/// `language`. A tool's own short error in that language is repeated as it
/// is (`unknown time zone 'Mars/Base'` says more than any kind); anything
/// else is named by its kind when its words tell it, else shortened.
fn reason(error: &str, language: Language) -> Reason {
    let short = shorten(error);
    let whole = error.trim().trim_end_matches(['.', '。', ' ']);
    if !short.is_empty() && short == whole && Language::of(whole) == language {
        return Reason::Own(short);
    }
    let lower = error.to_lowercase();
    MARKERS
        .iter()
        .find(|(words, _)| words.iter().any(|word| lower.contains(word)))
        .map_or(Reason::Own(short), |(_, reason)| reason.clone())
}

/// A tool's own error as an answer repeats it: its first line's first
/// clause (the summary a tool writes before the exception it caught), without
/// the runtime's framing (`tool "x": `, `execute() raised `, the file and
/// line), an exception's class name, or a URL's path and query; cut to
/// [`MAX_REASON_CHARS`].
fn shorten(error: &str) -> String {
    let mut lines = error.lines().map(str::trim).filter(|line| !line.is_empty());
    let first = lines.next().unwrap_or("");
    // A traceback's last line is the exception it ends in.
    let mut text = match first.starts_with("Traceback (") {
        true => lines.next_back().unwrap_or(first),
        false => first,
    };
    if let Some(rest) = text.strip_prefix("tool \"")
        && let Some((_, message)) = rest.split_once("\": ")
    {
        text = message;
    }
    text = text.strip_prefix("execute() raised ").unwrap_or(text);
    if let Some((before, place)) = text.rsplit_once(" (")
        && place.ends_with(')')
        && place.contains(".py:")
    {
        text = before;
    }
    let text = without_exception_name(text);
    let clause = [": ", "; ", ". ", "。", "\t"]
        .iter()
        .filter_map(|separator| text.find(separator))
        .min()
        .map_or(text.as_str(), |end| &text[..end]);
    let clause: Vec<String> = clause.split_whitespace().map(host_only).collect();
    let clause = clause.join(" ");
    cut(clause.trim_end_matches(['.', '。', ' ']))
}

/// `KeyError: 'city'` as `KeyError 'city'`, `ValueError: bad value` as
/// `bad value`: the class name says little when the message is a phrase.
fn without_exception_name(text: &str) -> String {
    let Some((name, message)) = text.split_once(": ") else {
        return text.to_owned();
    };
    let exception = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        && ["Error", "Exception", "Warning"]
            .iter()
            .any(|suffix| name.ends_with(suffix));
    match (exception, message.contains(' ')) {
        (false, _) => text.to_owned(),
        (true, true) => message.to_owned(),
        (true, false) => format!("{} {message}", name.rsplit('.').next().unwrap_or(name)),
    }
}

/// A URL as its host; any other word as it is.
fn host_only(word: &str) -> String {
    let Some((_, rest)) = word.split_once("://") else {
        return word.to_owned();
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = host.rsplit('@').next().unwrap_or(host);
    host.to_owned()
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_REASON_CHARS {
        return text.to_owned();
    }
    let kept: String = text.chars().take(MAX_REASON_CHARS).collect();
    let at_word = match kept.rfind(' ') {
        Some(space) if space > MAX_REASON_CHARS / 2 => &kept[..space],
        _ => kept.as_str(),
    };
    format!("{}…", at_word.trim_end_matches([',', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What init's weather tool answered offline before issue 49.
    const OFFLINE: &str = "tool weather failed: weather service unreachable: \
        HTTPSConnectionPool(host='wttr.in', port=443): Max retries exceeded with url: \
        /Tokyo?format=3 (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection \
        object at 0x7f>: Failed to resolve 'wttr.in' ([Errno -3] Temporary failure in name resolution)\"))";

    #[test]
    fn a_caught_connection_error_is_a_service_out_of_reach_in_each_language() {
        assert_eq!(
            sentence(Language::English, "weather", OFFLINE),
            "The weather tool couldn't reach the service it uses."
        );
        assert_eq!(
            sentence(Language::Japanese, "weather", OFFLINE),
            "weather ツールは接続先に接続できませんでした。"
        );
        assert_eq!(
            sentence(Language::Chinese, "weather", OFFLINE),
            "weather 工具无法连接到它使用的服务。"
        );
    }

    #[test]
    fn the_runtimes_failures_are_named_by_their_kind() {
        let cases = [
            (
                "tool hangs failed: tool \"hangs\" timed out after 2 s; its worker was killed",
                Reason::TimedOut,
            ),
            (
                "ツール convert_units は失敗しました: parameter \"value\": expected a number, got \"ten\"",
                Reason::BadParameters,
            ),
            (
                "tool fetch failed: sandbox: connecting to port 8901 is outside the sandbox.network (ports 443)",
                Reason::Refused,
            ),
            (
                "工具 segfault 执行失败：python worker died: exit status 139",
                Reason::Crashed,
            ),
            (
                "tool broken failed: tool \"broken\" could not run: can't find python3",
                Reason::Unavailable,
            ),
            (
                "tool shell failed: shell was not run: denied by rule rm",
                Reason::NotRun,
            ),
        ];
        for (content, expected) in cases {
            assert_eq!(
                reason(error_of(content), Language::English),
                expected,
                "{content}"
            );
        }
    }

    #[test]
    fn a_tools_own_error_is_its_first_clause_without_exception_dumps() {
        let cases = [
            (
                "tool clock failed: unknown time zone 'Mars/Base'",
                "unknown time zone 'Mars/Base'",
            ),
            ("missing city", "missing city"),
            (
                "execute() raised ZeroDivisionError: division by zero (execute_raises.py:7)",
                "division by zero",
            ),
            (
                "execute() raised KeyError: 'city' (tool.py:3)",
                "KeyError 'city'",
            ),
            (
                "quote service said no: 503 Server Error for url https://api.example.com/v1/q?s=AAPL",
                "quote service said no",
            ),
            (
                "could not fetch https://user@example.com/a/b?c=d\nTraceback (most recent call last):",
                "could not fetch example.com",
            ),
            (
                "Traceback (most recent call last):\n  File \"t.py\", line 3\nValueError: bad input value",
                "bad input value",
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(
                reason(error_of(error), Language::English),
                Reason::Own(expected.to_owned()),
                "{error}"
            );
        }
        let long = "the quarterly report could not be generated because the template ".repeat(3);
        let Reason::Own(short) = reason(&long, Language::English) else {
            panic!("a tool's own error");
        };
        assert!(short.chars().count() <= MAX_REASON_CHARS + 1, "{short}");
        assert!(short.ends_with("template the quarterly…"), "{short}");
    }

    #[test]
    fn a_tools_own_error_is_one_sentence_in_each_language() {
        let content = "tool clock failed: unknown time zone 'Mars/Base'";
        assert_eq!(
            sentence(Language::English, "clock", content),
            "The clock tool failed: unknown time zone 'Mars/Base'."
        );
        assert_eq!(
            sentence(Language::Japanese, "clock", content),
            "clock ツールが失敗しました（unknown time zone 'Mars/Base'）。"
        );
        assert_eq!(
            sentence(Language::Chinese, "clock", content),
            "clock 工具执行失败（unknown time zone 'Mars/Base'）。"
        );
        assert_eq!(
            sentence(Language::English, "", "tool x failed: "),
            "A tool failed."
        );
    }

    /// A tool's own error is repeated in the message's language only; in
    /// another it is named by its kind when its words tell it.
    #[test]
    fn a_tools_own_error_in_another_language_is_named_by_its_kind() {
        let english = "tool weather failed: can't reach the weather service (wttr.in)";
        let japanese = "ツール weather は失敗しました: 天気サービス (wttr.in) に接続できません";
        assert_eq!(
            sentence(Language::English, "weather", english),
            "The weather tool failed: can't reach the weather service (wttr.in)."
        );
        assert_eq!(
            sentence(Language::Japanese, "weather", japanese),
            "weather ツールが失敗しました（天気サービス (wttr.in) に接続できません）。"
        );
        assert_eq!(
            sentence(Language::Japanese, "weather", english),
            "weather ツールは接続先に接続できませんでした。"
        );
        assert_eq!(
            sentence(Language::English, "weather", japanese),
            "The weather tool couldn't reach the service it uses."
        );
    }
}
