//! File utilities every layer shares: the one atomic writer and the RON options every
//! Kraftwerk file is read and written with.
//!
//! Lives in the catalog crate because it is the bottom layer: core (build files), live
//! (recordings), the app (exports, user parts) and the CLI all save through [`write_atomic`], so a
//! save has one durability story everywhere.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// RON options used for every Kraftwerk file: `Some(..)` may be written bare.
pub fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

/// Counts temporary files made by this process, so two saves of one path at once (two threads)
/// never share a temporary name.
static TEMP_SERIAL: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically and durably: a temporary file in the same folder named
/// `.<name>.tmp-<pid>-<serial>` (unique per process and call), written and `fsync`ed, renamed over
/// `path`, then (on Unix) the folder `fsync`ed so the rename itself survives a power cut. A failed
/// save removes its temporary file and leaves the old `path` untouched; a reader never sees a
/// half-written file.
///
/// The folder must exist (callers that save into a configuration folder create it first).
///
/// # Errors
/// The I/O error of creating, writing, syncing or renaming; `InvalidInput` when `path` has no
/// file name. Syncing the folder is best effort (some file systems refuse it; the data is already
/// synced then).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir: PathBuf = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name =
        path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))?;
    let serial = TEMP_SERIAL.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.tmp-{}-{serial}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    #[cfg(unix)]
    if let Ok(d) = File::open(&dir) {
        // Makes the rename durable; a refusal is harmless (the file's data is synced).
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kraftwerk-files-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = scratch("replace");
        let p = dir.join("x.ron");
        write_atomic(&p, b"one").expect("write");
        write_atomic(&p, b"two").expect("write");
        assert_eq!(fs::read_to_string(&p).expect("read"), "two");
        let names: Vec<_> = fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x.ron")], "only the target remains");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_save_keeps_the_old_file_and_cleans_up() {
        let dir = scratch("fail");
        assert!(write_atomic(&dir.join("no-such-dir/x.csv"), b"x").is_err());
        // A directory where the file should go: the rename fails, the directory stays.
        let target = dir.join("taken");
        fs::create_dir(&target).expect("mkdir");
        fs::write(target.join("keep"), "kept").expect("write");
        assert!(write_atomic(&target, b"new").is_err());
        assert_eq!(fs::read_to_string(target.join("keep")).expect("read"), "kept");
        let stray: Vec<_> = fs::read_dir(&dir)
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(stray.is_empty(), "temporary files left behind: {stray:?}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn concurrent_saves_of_one_path_use_distinct_temporaries() {
        let dir = scratch("threads");
        let p = dir.join("same.json");
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let p = p.clone();
                std::thread::spawn(move || write_atomic(&p, format!("writer {i}").as_bytes()))
            })
            .collect();
        for h in handles {
            h.join().expect("thread").expect("each save succeeds");
        }
        assert!(fs::read_to_string(&p).expect("read").starts_with("writer "));
        let _ = fs::remove_dir_all(&dir);
    }
}
