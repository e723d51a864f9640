//! The environment NCCL needs: NVLink SHARP off, and a library cudarc can find.
//!
//! - NVLS (NVLink SHARP: multicast through NVSwitch) must stay off wherever Kraftwerk runs
//!   NCCL. NCCL reads `NCCL_NVLS_ENABLE` once, when it initialises; setting it from inside the
//!   process needs `std::env::set_var`, which is `unsafe` in edition 2024 (other threads may
//!   read the environment at the same time) and which this crate does not use. So the library
//!   refuses to run NCCL unless the variable is already `0` ([`nvls_disabled`]), and the CLI
//!   (`kraftwerk links`) starts itself again with the variable set when it is not
//!   ([`ChildPlan`]).
//! - cudarc 0.19 loads NCCL by the names `libnccl.so`, `libnccl.so.1`, `libnccl.so.13`, … but not
//!   `libnccl.so.2`, NCCL's real soname, which is all that NCCL's runtime packages
//!   (`libnccl2`, the `nvidia-nccl-cu12`/`-cu13` wheels PyTorch uses) install; only the
//!   development package adds the `libnccl.so` link. [`find_libnccl`] finds `libnccl.so.2`
//!   (`KRAFTWERK_NCCL_LIB`, the loader cache, `LD_LIBRARY_PATH`, the usual library folders,
//!   Python's `nvidia/nccl/lib`), and [`alias_dir`] makes a private folder holding a
//!   `libnccl.so` link to it for the restarted process's `LD_LIBRARY_PATH`.

use super::NVLS_ENV;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Set by `kraftwerk links` in the process it restarts, so the restart happens once.
pub const CHILD_ENV: &str = "KRAFTWERK_LINKS_CHILD";

/// An explicit path to the NCCL library (`…/libnccl.so.2`), searched first.
pub(crate) const NCCL_LIB_ENV: &str = "KRAFTWERK_NCCL_LIB";

/// NCCL's library file name (its soname).
pub(crate) const NCCL_SONAME: &str = "libnccl.so.2";

/// The value of `NCCL_NVLS_ENABLE` in this process's environment.
pub fn nvls_value() -> Option<String> {
    std::env::var(NVLS_ENV).ok()
}

/// `Ok` when `NCCL_NVLS_ENABLE=0` is set (NVLS off), else why NCCL must not run.
pub fn nvls_disabled() -> Result<(), String> {
    check_nvls(nvls_value().as_deref())
}

/// [`nvls_disabled`] for a given value of the variable (pure).
pub fn check_nvls(value: Option<&str>) -> Result<(), String> {
    match value.map(str::trim) {
        Some("0") => Ok(()),
        Some(v) => Err(format!(
            "not run: {NVLS_ENV}={v}; NVLink SHARP must stay off: start with {NVLS_ENV}=0 (`kraftwerk links` does this itself)"
        )),
        None => Err(format!(
            "not run: {NVLS_ENV} is not set; NVLink SHARP must stay off: start with {NVLS_ENV}=0 (`kraftwerk links` does this itself)"
        )),
    }
}

/// What the restarted `kraftwerk links` process needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChildPlan {
    /// Set `NCCL_NVLS_ENABLE=0`.
    pub set_nvls_off: bool,
    /// Put a `libnccl.so` link to this library on `LD_LIBRARY_PATH`.
    pub alias_library: Option<PathBuf>,
}

impl ChildPlan {
    /// Decides whether to restart (pure): `None` when this is already the restarted process or
    /// nothing needs changing. `nvls` is the current `NCCL_NVLS_ENABLE`, `nccl_loadable` whether
    /// cudarc finds NCCL by its own names, `found` a `libnccl.so.2` found elsewhere.
    pub fn decide(nvls: Option<&str>, nccl_loadable: bool, found: Option<&Path>, already_child: bool) -> Option<Self> {
        if already_child {
            return None;
        }
        let plan = Self {
            set_nvls_off: check_nvls(nvls).is_err(),
            alias_library: if nccl_loadable { None } else { found.map(Path::to_path_buf) },
        };
        (plan != Self::default()).then_some(plan)
    }

    /// The environment variables to set in the restarted process (`alias` is the folder from
    /// [`alias_dir`], when one was made).
    pub fn env(&self, alias: Option<&Path>) -> Vec<(OsString, OsString)> {
        let mut env = vec![(OsString::from(CHILD_ENV), OsString::from("1"))];
        if self.set_nvls_off {
            env.push((OsString::from(NVLS_ENV), OsString::from("0")));
        }
        if let Some(dir) = alias {
            let mut paths = vec![dir.to_path_buf()];
            if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
                paths.extend(std::env::split_paths(&old));
            }
            if let Ok(joined) = std::env::join_paths(paths) {
                env.push((OsString::from("LD_LIBRARY_PATH"), joined));
            }
            if let Some(lib) = &self.alias_library {
                env.push((OsString::from(NCCL_LIB_ENV), lib.clone().into_os_string()));
            }
        }
        env
    }
}

/// Folders searched for [`NCCL_SONAME`] after the explicit path and the loader cache:
/// `LD_LIBRARY_PATH`, the usual system and CUDA folders, Conda, and the `nvidia/nccl/lib` folder
/// of every Python 3 `site-packages`/`dist-packages` under the usual prefixes, a virtualenv and
/// the user's `~/.local`.
pub(crate) fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default();
    for d in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
        "/usr/local/cuda/lib64",
        "/usr/local/nccl/lib",
        "/opt/conda/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    let mut prefixes: Vec<PathBuf> =
        ["/usr/local/lib", "/usr/lib", "/usr/local/lib64", "/opt/conda/lib"].iter().map(PathBuf::from).collect();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(var) {
            prefixes.push(PathBuf::from(p).join("lib"));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        prefixes.push(PathBuf::from(home).join(".local/lib"));
    }
    for prefix in prefixes {
        let Ok(entries) = std::fs::read_dir(&prefix) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pythons.sort();
        for py in pythons {
            for sp in ["site-packages", "dist-packages"] {
                dirs.push(py.join(sp).join("nvidia/nccl/lib"));
            }
        }
    }
    dirs
}

/// `libnccl.so.2` entries of `ldconfig -p` output (pure): the paths after `=>`.
pub fn parse_ldconfig(output: &str) -> Vec<PathBuf> {
    output
        .lines()
        .filter(|l| l.trim_start().starts_with(NCCL_SONAME))
        .filter_map(|l| l.split_once("=>").map(|(_, p)| PathBuf::from(p.trim())))
        .collect()
}

/// Finds NCCL's library: [`NCCL_LIB_ENV`], then `ldconfig -p`, then [`search_dirs`], then (when
/// `ask_python`) the `nvidia.nccl` package of `python3`. `None` when nowhere.
pub fn find_libnccl(ask_python: bool) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(NCCL_LIB_ENV).map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(p);
    }
    for ldconfig in ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"] {
        if let Ok(out) = std::process::Command::new(ldconfig).arg("-p").output() {
            if let Some(p) = parse_ldconfig(&String::from_utf8_lossy(&out.stdout)).into_iter().find(|p| p.is_file()) {
                return Some(p);
            }
            break;
        }
    }
    if let Some(p) = search_dirs().into_iter().map(|d| d.join(NCCL_SONAME)).find(|p| p.is_file()) {
        return Some(p);
    }
    if ask_python {
        let script = "import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], 'lib'))";
        if let Ok(out) = std::process::Command::new("python3").args(["-c", script]).output() {
            let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            let p = Path::new(&dir).join(NCCL_SONAME);
            if out.status.success() && p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Makes (or reuses) a private folder holding `libnccl.so` → `lib`, for `LD_LIBRARY_PATH`.
#[cfg(unix)]
pub fn alias_dir(lib: &Path) -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("kraftwerk-nccl-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let link = dir.join("libnccl.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(lib, &link)?;
    Ok(dir)
}

/// Not supported off Unix (NCCL is Linux-only).
#[cfg(not(unix))]
pub fn alias_dir(_lib: &Path) -> std::io::Result<PathBuf> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "NCCL runs on Linux only"))
}

/// The NCCL library file this process has mapped (`/proc/self/maps`), when any.
pub fn loaded_libnccl() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| Path::new(p).file_name().is_some_and(|f| f.to_string_lossy().starts_with("libnccl")))
        .map(str::to_owned)
}
