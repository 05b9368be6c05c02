//! The forms of one argument that an approval rule reads: [`Places`] and
//! [`Form`].
//!
//! A tool does not always act on the text it is sent. The standard file tools
//! strip it, expand `~`, drop empty and `.` components, take `..` and follow
//! symlinks, and a tool of someone else's may do any of these. A rule that
//! read only the text would decide on one path while the tool acts on another:
//! `notes/run.sh/` passed `deny: [{path: {regex: ".*\\.sh"}}]` and was written
//! as `notes/run.sh` (issue 41). So a value is read in every form a tool might
//! act on, and a pattern's text in the same form before the two are compared.
//!
//! Which arguments are paths is not told by the parameter's name (a tool may
//! call it `path`, `file`, `target` or `dest`), so every string is read in
//! every form. Text that is no path (`git status`, `ls -la`) reads the same in
//! all of them; where it does not (`https://a/b` read as a path is
//! `https:/a/b`), a pattern's text reads the same way, so `{prefix:
//! "https://a/"}` still matches it.

use std::path::{Component, Path, PathBuf};

use unicode_normalization::{UnicodeNormalization, is_nfc};

/// The most components a value may have to be read as a path on this
/// machine, one lookup per component; a longer one passes no `auto` rule.
const MAX_COMPONENTS: usize = 256;

/// A form a tool may act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// The text as it was sent.
    Sent,
    /// Without whitespace at either end, as Python's `str.strip()` leaves it
    /// (the standard tools strip their paths).
    Trimmed,
    /// As a path, without looking at the disk: trimmed, `~` expanded, empty
    /// and `.` components dropped, `..` taken, and relative to the project
    /// when it lies inside it.
    Lexical,
    /// As a path on this machine: [`Form::Lexical`], with the symlinks on the
    /// way followed, as the tool's walk follows them.
    Resolved,
}

impl Form {
    pub(crate) const ALL: [Form; 4] = [Form::Sent, Form::Trimmed, Form::Lexical, Form::Resolved];
}

/// Where paths lead: the project directory that relative paths start from,
/// and the home directory `~` stands for.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Places {
    /// The project directory as Riverse was given it, made absolute, as
    /// components; `None` when the policy was not told, and then relative
    /// paths are read lexically, without looking at the disk.
    project: Option<Vec<String>>,
    /// The project directory with its symlinks followed, where the tools'
    /// walk starts.
    real_project: Option<PathBuf>,
    /// What `~` expands to, as the tools' `os.path.expanduser` reads it:
    /// `$HOME`, else the user's entry in the password database.
    home: Option<String>,
}

impl Places {
    /// The places of a project in `project`, with the home of this process.
    pub(crate) fn new(project: &Path) -> Places {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .or_else(std::env::home_dir)
            .and_then(|home| home.to_str().map(str::to_owned));
        Places::with_home(project, home)
    }

    pub(crate) fn with_home(project: &Path, home: Option<String>) -> Places {
        let project = std::path::absolute(project).ok();
        Places {
            real_project: project
                .as_deref()
                .and_then(|project| project.canonicalize().ok()),
            project: project.as_deref().and_then(parts_of),
            home,
        }
    }

    /// `text` in `form`.
    pub(crate) fn read(&self, form: Form, text: &str) -> String {
        match form {
            Form::Sent => text.to_owned(),
            Form::Trimmed => trim(text).to_owned(),
            Form::Lexical => self.lexical(trim(text)),
            Form::Resolved => self.resolved(trim(text)),
        }
    }

    /// Whether `text` reads to a person as it does to the file system, so
    /// that an `auto` rule may let it through: it has no `..` component, a
    /// `~` it starts with can be expanded, it is NFC (a decomposed `é` is
    /// another name that looks the same) and it holds no invisible character
    /// (a bidi override, a zero-width space) and no control other than tab
    /// and line breaks.
    pub(crate) fn reads_plainly(&self, text: &str) -> bool {
        let trimmed = trim(text);
        let components = trimmed.split('/').count();
        is_nfc(text)
            && !text.chars().any(is_hidden)
            && !trimmed.split('/').any(|part| part == "..")
            && (!trimmed.starts_with('~') || self.expand_home(trimmed).is_some())
            && components <= MAX_COMPONENTS
    }

    fn lexical(&self, text: &str) -> String {
        let expanded = self.expand_home(text).unwrap_or_else(|| text.to_owned());
        let (absolute, mut parts) = match &self.project {
            _ if expanded.starts_with('/') => (true, Vec::new()),
            Some(project) => (true, project.clone()),
            None => (false, Vec::new()),
        };
        for part in expanded.split('/') {
            match part {
                "" | "." => {}
                ".." if parts.last().is_some_and(|last| last != "..") => {
                    parts.pop();
                }
                ".." if absolute => {}
                name => parts.push(name.to_owned()),
            }
        }
        self.shown(absolute, parts)
    }

    fn resolved(&self, text: &str) -> String {
        let Some(real_project) = &self.real_project else {
            return self.lexical(text);
        };
        let expanded = self.expand_home(text).unwrap_or_else(|| text.to_owned());
        let parts: Vec<&str> = expanded
            .split('/')
            .filter(|part| !matches!(*part, "" | "."))
            .collect();
        if parts.len() > MAX_COMPONENTS {
            return self.lexical(text);
        }
        let mut at = if expanded.starts_with('/') {
            PathBuf::from("/")
        } else {
            real_project.clone()
        };
        for part in parts {
            if part == ".." {
                at.pop();
            } else {
                let next = at.join(part);
                at = next.canonicalize().unwrap_or(next);
            }
        }
        let parts = at
            .components()
            .filter_map(|component| match component {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        self.shown(true, parts)
    }

    /// An absolute path as its components relative to the project when it
    /// lies inside it (as given or with its symlinks followed).
    fn shown(&self, absolute: bool, parts: Vec<String>) -> String {
        if !absolute {
            return if parts.is_empty() {
                ".".to_owned()
            } else {
                parts.join("/")
            };
        }
        let real_project = self.real_project.as_deref().and_then(parts_of);
        for project in [&self.project, &real_project].into_iter().flatten() {
            if let Some(inside) = parts.strip_prefix(project.as_slice()) {
                return self.shown(false, inside.to_vec());
            }
        }
        format!("/{}", parts.join("/"))
    }

    /// `text` with a leading `~` or `~user` expanded as `os.path.expanduser`
    /// does, or `None` when it names a home that can't be found.
    fn expand_home(&self, text: &str) -> Option<String> {
        let Some(rest) = text.strip_prefix('~') else {
            return Some(text.to_owned());
        };
        let end = rest.find('/').unwrap_or(rest.len());
        let (user, tail) = rest.split_at(end);
        let home = if user.is_empty() {
            self.home.clone()?
        } else {
            user_home(user)?
        };
        let expanded = format!("{}{tail}", home.trim_end_matches('/'));
        Some(if expanded.is_empty() {
            "/".to_owned()
        } else {
            expanded
        })
    }
}

/// The home directory of `user` in `/etc/passwd`.
fn user_home(user: &str) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() >= 7 && fields[0] == user).then(|| fields[5].to_owned())
    })
}

fn parts_of(path: &Path) -> Option<Vec<String>> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_str().map(str::to_owned)),
            _ => None,
        })
        .collect()
}

/// `text` without what Python's `str.strip()` removes: Unicode whitespace
/// and the information separators U+001C to U+001F.
pub(crate) fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `text` as a rule that holds calls back reads it: composed (NFC) and in
/// lower case, so `.PY` and a decomposed `é` match what `.py` and `é` do.
pub(crate) fn folded(text: &str) -> String {
    text.nfc().collect::<String>().to_lowercase()
}

/// A character a person does not see: Unicode's default-ignorable code
/// points (bidi controls, zero-width spaces and joiners, variation selectors,
/// fillers) and controls other than tab and line breaks.
fn is_hidden(c: char) -> bool {
    const DEFAULT_IGNORABLE: &[(char, char)] = &[
        ('\u{00AD}', '\u{00AD}'),
        ('\u{034F}', '\u{034F}'),
        ('\u{061C}', '\u{061C}'),
        ('\u{115F}', '\u{1160}'),
        ('\u{17B4}', '\u{17B5}'),
        ('\u{180B}', '\u{180F}'),
        ('\u{200B}', '\u{200F}'),
        ('\u{202A}', '\u{202E}'),
        ('\u{2060}', '\u{206F}'),
        ('\u{3164}', '\u{3164}'),
        ('\u{FE00}', '\u{FE0F}'),
        ('\u{FEFF}', '\u{FEFF}'),
        ('\u{FFA0}', '\u{FFA0}'),
        ('\u{FFF0}', '\u{FFF8}'),
        ('\u{1BCA0}', '\u{1BCA3}'),
        ('\u{1D173}', '\u{1D17A}'),
        ('\u{E0000}', '\u{E0FFF}'),
    ];
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || DEFAULT_IGNORABLE
            .iter()
            .any(|(first, last)| (*first..=*last).contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn places(project: &Path) -> Places {
        Places::with_home(project, Some("/home/someone".to_owned()))
    }

    #[test]
    fn a_path_reads_as_the_tools_walk_it_and_relative_to_the_project() {
        let places = places(Path::new("/srv/project"));
        for (text, lexical) in [
            ("notes/a.sh", "notes/a.sh"),
            ("notes/b.sh/", "notes/b.sh"),
            ("notes/c.sh/.", "notes/c.sh"),
            ("notes//d.py//", "notes/d.py"),
            ("./notes/./e.py", "notes/e.py"),
            (" notes/f.sh\n", "notes/f.sh"),
            ("/srv/project/notes/g.sh", "notes/g.sh"),
            ("/srv//project/./notes/h.sh/", "notes/h.sh"),
            ("notes/x/../i.sh", "notes/i.sh"),
            ("../project/notes/j.sh", "notes/j.sh"),
            ("../other/k.sh", "/srv/other/k.sh"),
            ("/../../etc/passwd", "/etc/passwd"),
            ("~/l.sh", "/home/someone/l.sh"),
            ("~", "/home/someone"),
            (".", "."),
            ("./", "."),
            ("git status", "git status"),
            ("https://example.com/a", "https:/example.com/a"),
        ] {
            assert_eq!(places.read(Form::Lexical, text), lexical, "{text:?}");
        }
    }

    #[test]
    fn without_a_project_a_relative_path_stays_relative() {
        let places = Places::default();
        assert_eq!(places.read(Form::Lexical, "notes//a.sh/."), "notes/a.sh");
        assert_eq!(places.read(Form::Lexical, "../a/./b/"), "../a/b");
        assert_eq!(places.read(Form::Resolved, "notes/a/"), "notes/a");
        assert!(!places.reads_plainly("~/a"), "no home to expand ~ to");
    }

    #[test]
    fn a_resolved_path_follows_symlinks_inside_and_out_of_the_project() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        std::fs::create_dir_all(project.join("notes")).unwrap();
        std::fs::create_dir_all(project.join("scripts")).unwrap();
        std::os::unix::fs::symlink("../scripts", project.join("notes/link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), project.join("notes/away")).unwrap();
        std::os::unix::fs::symlink(&project, root.path().join("alias")).unwrap();
        let places = places(&root.path().join("alias"));
        let real_outside = outside.path().canonicalize().unwrap();
        assert_eq!(places.read(Form::Resolved, "notes/a.md"), "notes/a.md");
        assert_eq!(
            places.read(Form::Resolved, "notes/link/run.sh/"),
            "scripts/run.sh"
        );
        assert_eq!(
            places.read(Form::Resolved, "notes/link/../a.md"),
            "a.md",
            "`..` after a symlink is taken where it leads"
        );
        assert_eq!(
            places.read(Form::Resolved, "notes/new/../b.md"),
            "notes/b.md"
        );
        assert_eq!(
            places.read(Form::Resolved, "notes/away/c.sh"),
            format!("{}/c.sh", real_outside.display())
        );
        let absolute = format!("{}/notes/d.md", project.display());
        assert_eq!(places.read(Form::Resolved, &absolute), "notes/d.md");
        let aliased = format!("{}/alias/notes/e.md", root.path().display());
        assert_eq!(places.read(Form::Lexical, &aliased), "notes/e.md");
        assert_eq!(places.read(Form::Resolved, &aliased), "notes/e.md");
    }

    #[test]
    fn only_a_value_a_person_reads_as_the_file_system_does_is_plain() {
        let places = places(Path::new("/srv/project"));
        assert!(places.reads_plainly("notes/café.md"));
        assert!(places.reads_plainly("~/notes/a.md"));
        assert!(places.reads_plainly("line one\nline two"));
        for text in [
            "notes/../a.md",
            "notes/cafe\u{301}.md",
            "notes/a\u{200B}.md",
            "notes/\u{202E}dm.hs",
            "notes/a.md\u{FE0F}",
            "notes/a\u{7}.md",
            "~no-such-user-of-riverse/a.md",
        ] {
            assert!(!places.reads_plainly(text), "{text:?}");
        }
        let deep = "a/".repeat(MAX_COMPONENTS);
        assert!(!places.reads_plainly(&deep));
    }

    #[test]
    fn folding_composes_and_lowers_the_case() {
        assert_eq!(folded("Notes/CAFE\u{301}.PY"), "notes/café.py");
    }
}
