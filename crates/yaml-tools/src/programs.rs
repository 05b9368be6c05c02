//! Programs that run their arguments as code.
//!
//! A value that is one argument is still code when that argument is a
//! shell's `-c` script, `python -c`'s program, `awk`'s program text, or the
//! command `env`, `xargs` or `find -exec` runs. An entry whose values would
//! reach such a place is refused when it loads, unless it says
//! `allow_interpreter: true`. The lists below hold the common programs; they
//! are a guard for mistakes in a template, not a sandbox.

use indexmap::IndexMap;

use crate::words::Word;

/// How one program reads code from its arguments.
struct Interpreter {
    names: &'static [&'static str],
    /// Short options whose argument (attached or the next word) is code.
    code_short: &'static str,
    /// Long options whose argument is code.
    code_long: &'static [&'static str],
    /// Short options that take an argument that is not code.
    with_argument: &'static str,
    /// The first operand is code or names it (a script file, awk's program).
    operand_is_code: bool,
    /// Every operand after the first is code (`ssh HOST COMMAND...`).
    rest_is_code: bool,
}

const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "rbash",
    "busybox",
];

const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        names: SHELLS,
        code_short: "c",
        code_long: &["--command"],
        with_argument: "oO",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["eval"],
        code_short: "",
        code_long: &[],
        with_argument: "",
        operand_is_code: true,
        rest_is_code: true,
    },
    Interpreter {
        names: &[".", "source"],
        code_short: "",
        code_long: &[],
        with_argument: "",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["python", "python2", "python3", "pypy", "pypy3"],
        code_short: "cm",
        code_long: &[],
        with_argument: "WX",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["perl", "ruby"],
        code_short: "eErmM",
        code_long: &[],
        with_argument: "IC",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["node", "nodejs", "bun", "deno"],
        code_short: "epr",
        code_long: &["--eval", "--print", "--require", "--import"],
        with_argument: "",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["php"],
        code_short: "rBREF",
        code_long: &[],
        with_argument: "cdz",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &[
            "lua", "luajit", "Rscript", "R", "tclsh", "wish", "expect", "julia",
        ],
        code_short: "ecl",
        code_long: &["--eval"],
        with_argument: "",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["pwsh", "powershell"],
        code_short: "cCeE",
        code_long: &[],
        with_argument: "",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["awk", "gawk", "mawk", "nawk"],
        code_short: "fe",
        code_long: &["--source", "--file", "--include", "--load"],
        with_argument: "Fv",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        names: &["sed", "gsed"],
        code_short: "ef",
        code_long: &["--expression", "--file"],
        with_argument: "l",
        operand_is_code: true,
        rest_is_code: false,
    },
    Interpreter {
        // `watch` joins its arguments and runs them through `sh -c`.
        names: &["watch"],
        code_short: "",
        code_long: &[],
        with_argument: "nq",
        operand_is_code: true,
        rest_is_code: true,
    },
    Interpreter {
        names: &["ssh", "su", "runuser"],
        code_short: "c",
        code_long: &["--command"],
        with_argument: "pilo FJLRDbEIBSWwemQ",
        operand_is_code: false,
        rest_is_code: true,
    },
];

/// Programs that run the command given after their own options.
const WRAPPERS: &[(&str, &str)] = &[
    ("env", "uCP"),
    ("xargs", "adEeIiLlnPs"),
    ("nice", "n"),
    ("nohup", ""),
    ("timeout", "sk"),
    ("sudo", "ugChprtUD"),
    ("doas", "uC"),
    ("stdbuf", "ioe"),
    ("setsid", ""),
    ("command", ""),
    ("exec", ""),
    ("builtin", ""),
    ("time", "fo"),
    ("ionice", "cnp"),
    ("chrt", ""),
    ("taskset", ""),
    ("flock", "wE"),
    ("unbuffer", ""),
    ("chroot", ""),
    ("strace", "eoposu"),
    ("ltrace", "eopsu"),
    ("script", ""),
    ("then", ""),
    ("else", ""),
    ("do", ""),
    ("if", ""),
    ("elif", ""),
    ("while", ""),
    ("until", ""),
    ("!", ""),
    ("{", ""),
];

/// Wrappers whose first operand is not the program: `flock FILE COMMAND`,
/// `chroot ROOT COMMAND`.
const FIRST_OPERAND_FIRST: &[&str] = &["flock", "chroot"];

/// Short options of `env` whose argument is a command line.
const ENV_SPLIT: &str = "S";

/// Checks one simple command. A parameter listed in `allowed_params` has
/// only the values listed: the template author's choice, checked each.
pub(crate) fn check_command(
    words: &[Word],
    allowed: &IndexMap<String, Vec<String>>,
) -> Result<(), String> {
    let free = |word: &Word| {
        word.params()
            .find(|param| !allowed.contains_key(*param))
            .map(str::to_owned)
    };
    let mut at = 0;
    // `NAME=value` words before a shell command set variables.
    while at < words.len() && is_assignment(&words[at]) {
        at += 1;
    }
    loop {
        let Some(word) = words.get(at) else {
            return Ok(());
        };
        if let Some(param) = free(word) {
            return Err(format!(
                "the program to run comes from parameter \"{param}\"; list its values in allowed_params"
            ));
        }
        // `{prog} -c {x}` with prog: [bash] is `bash -c {x}`.
        if let Some(param) = word.params().next() {
            for value in &allowed[param] {
                let mut filled = words[at..].to_vec();
                filled[0] = word.with_value(param, value);
                check_command(&filled, allowed)?;
            }
            return Ok(());
        }
        let name = program_name(&word.literal().unwrap_or_default());
        if name == "find" {
            return check_find(&words[at + 1..], allowed);
        }
        if let Some((wrapper, with_argument)) = WRAPPERS.iter().find(|(known, _)| *known == name) {
            at = skip_wrapper_options(wrapper, with_argument, words, at + 1, &free)?;
            if FIRST_OPERAND_FIRST.contains(wrapper) {
                at += 1;
                // `flock FILE -c COMMAND` runs COMMAND through `sh -c`.
                if *wrapper == "flock"
                    && let Some(option) = words.get(at).and_then(Word::literal)
                    && matches!(option.as_str(), "-c" | "--command")
                {
                    return match words.get(at + 1).and_then(free) {
                        Some(param) => Err(code_error("flock -c", &param)),
                        None => Ok(()),
                    };
                }
            }
            continue;
        }
        return match INTERPRETERS.iter().find(|interpreter| {
            interpreter.names.contains(&name.as_str()) || is_versioned(&name, interpreter)
        }) {
            Some(interpreter) => check_interpreter(&name, interpreter, &words[at + 1..], &free),
            None => Ok(()),
        };
    }
}

/// Whether a literal `--` in this command may end up read as something
/// other than the end of the program's options: a wrapper's own `--`, or
/// `find`, which reads its expression (`-delete`) after one.
pub(crate) fn ignores_double_dash(word: &Word) -> bool {
    let name = program_name(&word.literal().unwrap_or_default());
    name == "find" || is_wrapper(word)
}

/// Whether the word names a program that runs another one.
fn is_wrapper(word: &Word) -> bool {
    let name = program_name(&word.literal().unwrap_or_default());
    WRAPPERS.iter().any(|(known, _)| *known == name)
}

/// `python3.12` is `python3`.
fn is_versioned(name: &str, interpreter: &Interpreter) -> bool {
    interpreter.names.iter().any(|known| {
        name.strip_prefix(known).is_some_and(|version| {
            !version.is_empty() && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
    })
}

/// The file name of a program, without its folder.
fn program_name(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_owned()
}

fn is_assignment(word: &Word) -> bool {
    let prefix = word.literal_prefix();
    prefix.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The index of the wrapped program's word.
fn skip_wrapper_options(
    wrapper: &str,
    with_argument: &str,
    words: &[Word],
    mut at: usize,
    free: &dyn Fn(&Word) -> Option<String>,
) -> Result<usize, String> {
    while let Some(word) = words.get(at) {
        let prefix = word.literal_prefix();
        if prefix == "--" && word.literal().is_some() {
            return Ok(at + 1);
        }
        if wrapper == "env" && is_assignment(word) {
            at += 1;
            continue;
        }
        if let Some(cluster) = short_cluster(&prefix) {
            if wrapper == "env"
                && cluster.contains(ENV_SPLIT)
                && let Some(param) = free(word).or_else(|| words.get(at + 1).and_then(free))
            {
                return Err(code_error("env -S", &param));
            }
            let takes = cluster
                .chars()
                .last()
                .is_some_and(|last| with_argument.contains(last));
            at += if takes && word.literal().as_deref() == Some(&format!("-{cluster}")) {
                2
            } else {
                1
            };
            continue;
        }
        if prefix.starts_with("--") {
            at += 1;
            continue;
        }
        // `nice 10`, `timeout 5s`, `taskset 0x3`: a number before the program.
        if !FIRST_OPERAND_FIRST.contains(&wrapper)
            && word.literal().is_some_and(|text| is_number_like(&text))
        {
            at += 1;
            continue;
        }
        return Ok(at);
    }
    Ok(at)
}

fn is_number_like(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == ',')
}

/// The letters of `-abc`; `None` for `--long`, `-` alone and operands.
fn short_cluster(prefix: &str) -> Option<&str> {
    let letters = prefix.strip_prefix('-')?;
    (!letters.is_empty() && !letters.starts_with('-')).then_some(letters)
}

fn code_error(program: &str, param: &str) -> String {
    format!(
        "{program} runs its argument as code, and parameter \"{param}\" would reach it; \
         set allow_interpreter: true if that is intended"
    )
}

fn check_interpreter(
    name: &str,
    interpreter: &Interpreter,
    args: &[Word],
    free: &dyn Fn(&Word) -> Option<String>,
) -> Result<(), String> {
    // A literal code argument (`sed -e s/a/b/`) does not end the options:
    // another may follow (`-e {x}`). Whether the first operand is code is
    // known only once they are all read.
    let mut code_given = false;
    let mut at = 0;
    while let Some(word) = args.get(at) {
        let prefix = word.literal_prefix();
        if prefix == "--" && word.literal().is_some() {
            at += 1;
            break;
        }
        if let Some(long) = prefix.strip_prefix("--").filter(|long| !long.is_empty()) {
            let option = format!("--{}", long.split('=').next().unwrap_or(long));
            if interpreter.code_long.contains(&option.as_str()) {
                let attached = prefix.contains('=') || word.literal().is_none();
                let code = if attached {
                    Some(word)
                } else {
                    args.get(at + 1)
                };
                if let Some(param) = code.and_then(free) {
                    return Err(code_error(name, &param));
                }
                code_given = true;
                at += if attached { 1 } else { 2 };
                continue;
            }
            at += 1;
            continue;
        }
        if let Some(cluster) = short_cluster(&prefix).filter(|_| !word.parts.is_empty()) {
            for (index, letter) in cluster.char_indices() {
                let attached =
                    index + letter.len_utf8() < cluster.len() || word.literal().is_none();
                if interpreter.code_short.contains(letter) {
                    let code = if attached {
                        Some(word)
                    } else {
                        args.get(at + 1)
                    };
                    if let Some(param) = code.and_then(free) {
                        return Err(code_error(name, &param));
                    }
                    code_given = true;
                    if !attached {
                        at += 1;
                    }
                    break;
                }
                if interpreter.with_argument.contains(letter) {
                    if !attached {
                        at += 1;
                    }
                    break;
                }
            }
            at += 1;
            continue;
        }
        break;
    }
    let mut operands = args[at.min(args.len())..].iter();
    if let Some(param) = operands
        .next()
        .filter(|_| interpreter.operand_is_code && !code_given)
        .and_then(free)
    {
        return Err(code_error(name, &param));
    }
    if interpreter.rest_is_code
        && let Some(param) = operands.find_map(free)
    {
        return Err(code_error(name, &param));
    }
    Ok(())
}

/// `find ... -exec PROGRAM ARGS ;`: the program after each action is a
/// command of its own.
fn check_find(args: &[Word], allowed: &IndexMap<String, Vec<String>>) -> Result<(), String> {
    const ACTIONS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];
    let mut at = 0;
    while at < args.len() {
        let is_action = args[at]
            .literal()
            .is_some_and(|text| ACTIONS.contains(&text.as_str()));
        at += 1;
        if !is_action {
            continue;
        }
        let end = args[at..]
            .iter()
            .position(|word| matches!(word.literal().as_deref(), Some(";" | "+")))
            .map_or(args.len(), |end| at + end);
        check_command(&args[at..end], allowed)?;
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(template: &str) -> Result<(), String> {
        let words: Vec<Word> = shlex::split(template)
            .unwrap()
            .iter()
            .map(|word| Word::from_unquoted(word))
            .collect();
        let allowed =
            IndexMap::from([("fixed".to_owned(), vec!["ls".to_owned(), "bash".to_owned()])]);
        check_command(&words, &allowed)
    }

    #[test]
    fn values_that_reach_code_are_refused() {
        for template in [
            "sh -c 'echo hi {name}'",
            "/bin/bash -ec {name}",
            "env FOO=1 -i sh -c {name}",
            "env -S {name}",
            "nice -n 5 timeout 10 bash -c \"{name}\"",
            "xargs -I % sh -c {name}",
            "sudo -u root python3 -c {name}",
            "python3.12 -c print({name})",
            "python3 -m {name}",
            "python3 {name}",
            "perl -ne {name} file",
            "node --eval={name}",
            "awk {name} file",
            "sed -e {name} file",
            "sed -e s/a/b/ -e {name} file",
            "perl -e1 -e {name}",
            "awk -f a.awk -f {name}",
            "node --eval=1 --eval {name}",
            "find . -name x -exec sh -c {name} ;",
            "ssh host ls {name}",
            "{name} --version",
            "eval echo {name}",
            "watch -n 5 ls {name}",
            "flock /tmp/lock -c {name}",
            "flock -w 5 /tmp/lock sh -c {name}",
            "chroot / sh -c {name}",
            "{fixed} -c {name}",
        ] {
            assert!(check(template).is_err(), "{template:?} was accepted");
        }
    }

    #[test]
    fn values_that_are_only_arguments_pass() {
        for template in [
            "python3 scripts/report.py --target {name}",
            "sh scripts/run.sh {name}",
            "bash -c 'echo \"$1\"' bash {name}",
            "awk -v name={name} '{print name}' file",
            "sed -e s/a/b/ {name}",
            "find {name} -name '*.rs' -exec grep -n TODO {} +",
            "git log -n 3 {name}",
            "{fixed} --version",
            "sh -c {fixed}",
            "timeout 5 grep -n {name} file",
            "flock /tmp/lock grep -n {name} file",
            "chroot / grep -n {name} file",
        ] {
            assert_eq!(check(template), Ok(()), "{template:?}");
        }
    }
}
