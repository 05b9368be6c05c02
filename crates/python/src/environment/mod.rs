//! The project's tool environment: `.riverse/venv`, holding what the tool
//! files declare (see `declarations.rs`), made from the configured
//! interpreter, which workers and the fork server then run.
//!
//! It is synced before the tools load, and only when the declarations (or
//! the interpreter) changed since the last sync that met them all: a normal
//! start reads the tool files and one small record, and runs nothing. A
//! project that declares nothing gets no environment. The environment sees
//! the interpreter's own packages beneath its own (a `.pth` file), so a tool
//! that imports what the interpreter already had keeps working when another
//! tool declares a package.
//!
//! A sync that fails is pinned on the files that asked: when installing
//! everything fails, each declaring file is tried in file-name order beside
//! those that passed, so a typo fails its own file and of two files asking
//! for versions that can't go together, the second fails, naming the first.
//! Only their tools are not loaded; the rest load in the environment as far
//! as it could be made.

mod declarations;
mod installer;
mod record;

use std::path::{Path, PathBuf};

pub use declarations::{Asks, Declarations, Declared, REQUIREMENTS_FILE, script_dependencies};
use installer::progress;
pub use installer::{Installer, InstallerChoice, Wanted, venv_python};
pub use record::{Record, Unmet};

use crate::Interpreter;

/// Where the environment lives, relative to the project.
pub const VENV_DIR: &str = ".riverse/venv";

/// `python.dependencies`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dependencies {
    /// Install what the tools declare into the tool environment.
    #[default]
    Auto,
    /// Run the interpreter as it is; declarations are not read.
    Off,
}

/// What the settings say of the environment.
#[derive(Debug, Clone, Default)]
pub struct EnvironmentOptions {
    pub dependencies: Dependencies,
    pub installer: InstallerChoice,
    /// `python.interpreter` as written (`None` when unset): set, it makes
    /// an environment made under another setting again from what it names.
    pub interpreter: Option<String>,
}

/// What the tools run with.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The environment's interpreter, or the configured one when nothing is
    /// declared or the environment could not be made.
    pub interpreter: Interpreter,
    pub unmet: Vec<Unmet>,
}

/// Readies the interpreter for the tools of `tools_dir`: `base` itself when
/// nothing is declared, else the project's environment, synced first if the
/// declarations changed (or always, with `rebuild`, from an empty one). The
/// environment keeps the interpreter it was made from (see `kept_base`).
pub async fn prepare(
    project_dir: &Path,
    tools_dir: &Path,
    base: Interpreter,
    options: &EnvironmentOptions,
    rebuild: bool,
) -> Prepared {
    let as_it_is = |unmet| Prepared {
        interpreter: base.clone(),
        unmet,
    };
    if options.dependencies == Dependencies::Off {
        return as_it_is(Vec::new());
    }
    // Installers run in the tools directory: paths must not depend on it.
    let (Ok(project_dir), Ok(tools_dir)) = (
        std::path::absolute(project_dir),
        std::path::absolute(tools_dir),
    ) else {
        return as_it_is(Vec::new());
    };
    let declarations = Declarations::read(&tools_dir);
    let invalid: Vec<Unmet> = declarations
        .invalid
        .iter()
        .map(|(file, error)| Unmet {
            file: file.clone(),
            error: error.clone(),
        })
        .collect();
    if declarations.declared.is_empty() {
        return as_it_is(invalid);
    }
    let venv = project_dir.join(VENV_DIR);
    let kept = kept_base(&venv, &base, options.interpreter.as_deref(), rebuild);
    let made_from = kept.as_ref().unwrap_or(&base);
    let fingerprint = declarations.fingerprint(&made_from.executable, options.installer);
    let environment = Interpreter {
        requested: VENV_DIR.to_owned() + "/bin/python",
        executable: venv_python(&venv),
    };
    let in_sync = |record: Option<Record>| {
        record.is_some_and(|record| record.fingerprint == fingerprint && record.unmet.is_empty())
            && environment.executable.exists()
    };
    if !rebuild && in_sync(Record::read(&venv)) {
        return Prepared {
            interpreter: environment,
            unmet: invalid,
        };
    }
    let _lock = match lock(&project_dir).await {
        Ok(lock) => lock,
        Err(error) => return as_it_is(all_unmet(&declarations, &error, invalid)),
    };
    // Another Riverse of this project may have synced while this one waited.
    if !rebuild && in_sync(Record::read(&venv)) {
        return Prepared {
            interpreter: environment,
            unmet: invalid,
        };
    }
    let sync = Syncing {
        base: made_from,
        configured: options.interpreter.as_deref(),
        venv: &venv,
        tools_dir: &tools_dir,
        declarations: &declarations,
    };
    match sync.run(options.installer, &fingerprint, rebuild).await {
        Ok(mut unmet) => {
            unmet.extend(invalid);
            Prepared {
                interpreter: environment,
                unmet,
            }
        }
        Err(error) => {
            progress(&format!(
                "the tool environment {VENV_DIR} could not be made: {error}"
            ));
            Prepared {
                ..as_it_is(all_unmet(&declarations, &error, invalid))
            }
        }
    }
}

/// The interpreter the environment at `venv` was made from, when it is not
/// `found` but is still there and `python.interpreter` is unset or reads as
/// it did then: the environment keeps it. `python3` on `PATH` depends on who
/// starts Riverse (an MCP host's `PATH` is not the shell's), and an
/// environment made again for each caller would churn; as uv does, it is
/// made again only when its interpreter is gone, the setting names another,
/// or `rebuild` asks (`riverse sync --rebuild`). An interpreter upgraded in
/// place changes the fingerprint, and is synced as before.
///
/// The interpreter is known by the path it was found at, not the file that
/// path leads to: a virtual environment's `python` leads to its base
/// interpreter, and the two see different packages.
fn kept_base(
    venv: &Path,
    found: &Interpreter,
    configured: Option<&str>,
    rebuild: bool,
) -> Option<Interpreter> {
    let record = Record::read(venv).filter(|_| !rebuild)?;
    let kept = record.interpreter != found.executable
        && (configured.is_none() || record.configured.as_deref() == configured)
        && record.interpreter.is_file()
        && venv_python(venv).exists();
    if !kept {
        return None;
    }
    tracing::debug!(
        "the tool environment {VENV_DIR} keeps {}, which made it; {} found now is used once it is made again (riverse sync --rebuild)",
        record.interpreter.display(),
        found.executable.display()
    );
    Some(Interpreter {
        requested: record.interpreter.display().to_string(),
        executable: record.interpreter,
    })
}

/// Every declaring file unmet, for one reason.
fn all_unmet(declarations: &Declarations, error: &str, mut unmet: Vec<Unmet>) -> Vec<Unmet> {
    unmet.extend(declarations.declared.iter().map(|declared| Unmet {
        file: declared.file.clone(),
        error: format!(
            "can't install {}: the tool environment {VENV_DIR} could not be made\n{error}",
            declared.shown(),
        ),
    }));
    unmet
}

/// Holds `.riverse/venv.lock` while one process syncs.
async fn lock(project_dir: &Path) -> Result<std::fs::File, String> {
    let dir = project_dir.join(".riverse");
    let path = dir.join("venv.lock");
    tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("can't create {}: {err}", dir.display()))?;
        let file = std::fs::File::create(&path)
            .map_err(|err| format!("can't create {}: {err}", path.display()))?;
        if file.try_lock().is_err() {
            progress(&format!(
                "waiting for another Riverse of this project to sync {VENV_DIR}"
            ));
            file.lock()
                .map_err(|err| format!("can't lock {}: {err}", path.display()))?;
        }
        Ok(file)
    })
    .await
    .map_err(|err| format!("the lock's task failed: {err}"))?
}

/// One sync of the environment in progress.
struct Syncing<'a> {
    base: &'a Interpreter,
    /// `python.interpreter` as written, kept in the record.
    configured: Option<&'a str>,
    venv: &'a Path,
    tools_dir: &'a Path,
    declarations: &'a Declarations,
}

impl Syncing<'_> {
    /// Makes the environment hold what is declared, as far as it can: the
    /// declarations it could not meet, or why there is no environment.
    async fn run(
        &self,
        choice: InstallerChoice,
        fingerprint: &str,
        rebuild: bool,
    ) -> Result<Vec<Unmet>, String> {
        let installer = Installer::find(choice, &self.base.executable).await?;
        let declared = &self.declarations.declared;
        let files: Vec<&str> = declared.iter().map(|d| d.file.as_str()).collect();
        progress(&format!(
            "syncing the tool environment {VENV_DIR} with {} for {}",
            installer.name(),
            files.join(", ")
        ));
        let previous = Record::read(self.venv);
        // uv makes an environment without pip: pip can't install into it.
        let reusable = !rebuild
            && venv_python(self.venv).exists()
            && previous.is_some_and(|record| {
                record.interpreter == self.base.executable && record.installer == installer.name()
            });
        if !reusable {
            self.create(&installer).await?;
        }
        let all: Vec<&Declared> = declared.iter().collect();
        let unmet = match self.install(&installer, &all).await {
            Ok(()) => Vec::new(),
            Err(_) if all.len() == 1 => self.pin_failures(&installer).await?,
            Err(_) => {
                progress("installing everything failed: trying each file's declaration");
                self.pin_failures(&installer).await?
            }
        };
        let record = Record::new(
            fingerprint,
            self.base,
            self.configured,
            &installer,
            declared,
            &unmet,
        );
        record
            .write(self.venv)
            .map_err(|err| format!("can't write its record: {err}"))?;
        progress(&match unmet.len() {
            0 => format!("the tool environment {VENV_DIR} is in sync"),
            n => format!(
                "the tool environment {VENV_DIR} is synced but for {n} file{}",
                if n == 1 { "" } else { "s" }
            ),
        });
        Ok(unmet)
    }

    /// An empty environment in place of whatever was there.
    async fn create(&self, installer: &Installer) -> Result<(), String> {
        if self.venv.exists() {
            let venv = self.venv.to_owned();
            tokio::task::spawn_blocking(move || std::fs::remove_dir_all(&venv))
                .await
                .map_err(|err| err.to_string())
                .and_then(|removed| removed.map_err(|err| err.to_string()))
                .map_err(|err| format!("can't remove the old {}: {err}", self.venv.display()))?;
        }
        installer.create(&self.base.executable, self.venv).await?;
        layer_base_packages(&self.base.executable, self.venv).await
    }

    /// Installs what `declared` asks for.
    async fn install(&self, installer: &Installer, declared: &[&Declared]) -> Result<(), String> {
        let mut wanted = Wanted::default();
        for declared in declared {
            match &declared.asks {
                Asks::Packages(packages) => wanted.packages.extend(packages.iter().cloned()),
                Asks::RequirementsFile { path, .. } => wanted.files.push(path.clone()),
            }
        }
        // pip reads the interpreter's packages through the layer as
        // installed already; the environment must hold what is declared.
        let _hidden = match installer {
            Installer::Pip => Some(HiddenLayer::hide(self.venv)),
            Installer::Uv(_) => None,
        };
        installer.install(self.venv, self.tools_dir, &wanted).await
    }

    /// Installing everything failed: finds which files' declarations can't
    /// be met by installing each beside those that could, in file-name order,
    /// and leaves the environment with the latter.
    async fn pin_failures(&self, installer: &Installer) -> Result<Vec<Unmet>, String> {
        let mut accepted: Vec<&Declared> = Vec::new();
        let mut unmet = Vec::new();
        for declared in &self.declarations.declared {
            let mut with_it = accepted.clone();
            with_it.push(declared);
            let Err(reason) = self.install(installer, &with_it).await else {
                accepted.push(declared);
                continue;
            };
            let alone = if accepted.is_empty() {
                Err(reason.clone())
            } else {
                self.install(installer, &[declared]).await
            };
            let error = match alone {
                Err(reason) => format!("can't install {}\n{reason}", declared.shown()),
                Ok(()) => format!(
                    "can't install {} beside what {} declare{}\n{reason}",
                    declared.shown(),
                    accepted
                        .iter()
                        .map(|d| d.file.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    if accepted.len() == 1 { "s" } else { "" }
                ),
            };
            progress(&format!("{}: {error}", declared.file));
            unmet.push(Unmet {
                file: declared.file.clone(),
                error,
            });
        }
        // A file tried alone may have changed what the others installed.
        if !accepted.is_empty() {
            self.install(installer, &accepted).await?;
        }
        Ok(unmet)
    }
}

/// Makes the interpreter's own packages visible beneath the environment's:
/// a `.pth` file in the environment's site-packages lists the interpreter's
/// site directories (its own, a virtual environment's, the user's).
async fn layer_base_packages(base: &Path, venv: &Path) -> Result<(), String> {
    let base_dirs = python_output(
        base,
        "import sys; print('\\n'.join(p for p in sys.path if p.rstrip('/').endswith(('site-packages', 'dist-packages'))))",
    )
    .await?;
    let own = python_output(
        &venv_python(venv),
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    )
    .await?;
    let own = PathBuf::from(own.trim());
    // `addsitedir`, not a bare path: the `.pth` files of those directories
    // (editable installs, namespace packages) are read too.
    let lines: Vec<String> = base_dirs
        .lines()
        .filter(|dir| !dir.is_empty() && !Path::new(dir).starts_with(venv))
        .filter_map(|dir| serde_json::to_string(dir).ok())
        .map(|quoted| format!("import site; site.addsitedir({quoted})"))
        .collect();
    let file = own.join(LAYER_FILE);
    std::fs::write(&file, lines.join("\n") + "\n")
        .map_err(|err| format!("can't write {}: {err}", file.display()))
}

/// The `.pth` file that layers the interpreter's packages, moved aside
/// while it lives. Put back when dropped, or by the next sync if Riverse was
/// killed meanwhile (whose record then is not yet written).
struct HiddenLayer {
    layer: Option<PathBuf>,
}

impl HiddenLayer {
    fn hide(venv: &Path) -> Self {
        let layer = find_layer(venv);
        if let Some(layer) = &layer {
            let _ = std::fs::rename(layer, layer.with_extension("pth-hidden"));
        }
        HiddenLayer { layer }
    }
}

impl Drop for HiddenLayer {
    fn drop(&mut self) {
        if let Some(layer) = &self.layer {
            let _ = std::fs::rename(layer.with_extension("pth-hidden"), layer);
        }
    }
}

/// Where the layer's `.pth` file is in the environment (shown or hidden).
fn find_layer(venv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    lib.filter_map(Result::ok)
        .map(|entry| entry.path().join("site-packages").join(LAYER_FILE))
        .find(|path| path.exists() || path.with_extension("pth-hidden").exists())
}

const LAYER_FILE: &str = "_riverse_interpreter_packages.pth";

async fn python_output(python: &Path, code: &str) -> Result<String, String> {
    let output = tokio::process::Command::new(python)
        .args(["-c", code])
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|err| format!("can't run {}: {err}", python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            python.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| format!("{} wrote no UTF-8", python.display()))
}

/// One line on the tool environment, for `riverse tools` and `riverse
/// sync`: `None` when no tool file declares anything.
pub fn summary(
    tools_dir: &Path,
    project_dir: &Path,
    options: &EnvironmentOptions,
) -> Option<String> {
    let declarations = Declarations::read(tools_dir);
    if declarations.declared.is_empty() {
        return None;
    }
    if options.dependencies == Dependencies::Off {
        return Some(
            "python.dependencies is off: what the tool files declare is not installed".to_owned(),
        );
    }
    let venv = project_dir.join(VENV_DIR);
    let Some(record) = Record::read(&venv) else {
        return Some(format!("tool environment {VENV_DIR}: not made yet"));
    };
    let current =
        record.fingerprint == declarations.fingerprint(&record.interpreter, options.installer);
    let declared: Vec<String> = record
        .declared
        .iter()
        .filter(|(file, _)| !record.unmet.iter().any(|unmet| unmet.file == *file))
        .map(|(file, asks)| format!("{asks} ({file})"))
        .collect();
    Some(match (current, record.unmet.len()) {
        (false, _) => format!("tool environment {VENV_DIR}: out of date, synced at the next start"),
        (true, 0) => format!(
            "tool environment {VENV_DIR} ({}): {}",
            record.installer,
            declared.join("; ")
        ),
        (true, unmet) => format!(
            "tool environment {VENV_DIR} ({}): {}; {unmet} file{} not met",
            record.installer,
            declared.join("; "),
            if unmet == 1 { "" } else { "s" }
        ),
    })
}
