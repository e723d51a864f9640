//! `kraftwerk board probe` on the recorded trees (`tests/fixtures/board-probe/`): the printed
//! entry is the golden file the catalog tests hold, it loads, and the exit codes say what the
//! help says.

use crate::support::kw_no_user_files;

fn fixture(name: &str) -> String {
    crate::support::fixture("board-probe").join(name).display().to_string()
}

#[test]
fn board_probe_prints_the_golden_entry_and_exits_3_when_incomplete() {
    for name in ["amd-x670e-hero", "intel-z790-p", "server-romed8-2t"] {
        let root = fixture(name);
        let (code, out, err) = kw_no_user_files(&["board", "probe", "--root", &root, "--date", "2026-12-05"]);
        assert_eq!(code, 3, "{name}: an entry with undetermined slots is not a pass\n{err}");
        assert!(err.contains("loads through the catalog's wiring loader"), "{name}: {err}");
        let golden = std::fs::read_to_string(format!("{root}/expected.ron")).expect("golden");
        // The CLI names the root as given; the golden file names the fixture folder.
        let out = out.replace(&format!("recorded tree {root}"), &format!("recorded tree {name}"));
        assert_eq!(out.trim_end(), golden.trim_end(), "{name}");
    }
}

#[test]
fn board_probe_without_a_slot_table_says_run_as_root_and_writes_no_entry() {
    let (code, out, err) =
        kw_no_user_files(&["board", "probe", "--root", &fixture("sandbox-vm"), "--date", "2026-12-05"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("slot table not readable: run as root"), "{out}");
    assert!(out.trim_end().ends_with("[]"), "{out}");
    assert!(err.contains("no catalog board matches"), "{err}");
}

#[test]
fn board_probe_rejects_an_unknown_board_and_a_bad_date() {
    let root = fixture("amd-x670e-hero");
    let (code, _, err) = kw_no_user_files(&["board", "probe", "--root", &root, "--board", "no-such-board"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no-such-board"), "{err}");
    let (code, _, err) = kw_no_user_files(&["board", "probe", "--root", &root, "--date", "5.12.2026"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn board_probe_writes_the_entry_with_out() {
    let dir = std::env::temp_dir().join(format!("kraftwerk-board-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let file = dir.join("x670e.ron");
    let file_s = file.display().to_string();
    let (code, out, err) = kw_no_user_files(&[
        "board",
        "probe",
        "--root",
        &fixture("amd-x670e-hero"),
        "--date",
        "2026-12-05",
        "--out",
        &file_s,
    ]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("written").trim_end(), out.trim_end());
    let _ = std::fs::remove_dir_all(&dir);
}
