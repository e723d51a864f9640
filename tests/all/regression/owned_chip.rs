//! A new user's finding: a card owned and named by its chip (`--own 1x nvidia-geforce-rtx-3090`)
//! was judged at the chip entry's reference board (the RTX 3090 Founders Edition: 313 mm, its
//! 12-pin socket) against a 315 mm case, and passed, though many partner RTX 3090s are longer
//! (the ASUS ROG Strix: 318.5 mm, three PCIe 8-pin). Such a card is now not a known card: the
//! rules that need its length, thickness or sockets say not checked, the verdict is
//! UNVERIFIED, and the planner and `check` say what would verify it; the same build with the
//! card named runs them and finds the Strix too long.

use crate::support::kw_no_user_files;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kraftwerk-owned-chip-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The ASUS ProArt PA401 (Wood Edition, black): GPUs up to 315 mm (ASUS's specification page).
const CASE_315: &str = "asus-proart-pa401-wood-edition-atx-mid-tower-black";
const STRIX: &str = "asus-rog-strix-geforce-rtx-3090-24gb-gddr6x";

fn check(path: &str) -> (i32, String) {
    let (code, out, err) = kw_no_user_files(&["check", path]);
    println!("$ kraftwerk check {path}\n{out}{err}");
    (code, out)
}

#[test]
fn an_owned_card_named_by_its_chip_is_not_checked_as_its_reference_board() {
    let dir = tmp("plan");
    let out = dir.to_string_lossy().to_string();
    let (code, plan, err) = kw_no_user_files(&[
        "plan",
        "--model",
        "qwen3-32b",
        "--own",
        "1x nvidia-geforce-rtx-3090",
        "--max-results",
        "1",
        "--out",
        &out,
    ]);
    println!("{plan}{err}");
    assert_eq!(code, 0, "{plan}{err}");
    assert!(plan.contains("checker: UNVERIFIED"), "{plan}");
    let line = plan.lines().find(|l| l.trim_start().starts_with("not checked (your card): ")).expect("your-card line");
    for rule in ["case-gpu-fit", "gpu-power-cable", "gpu-slot-blocked", "psu-connectors"] {
        assert!(line.contains(rule), "{rule} in {line}");
    }
    assert!(line.contains("it is owned and named by its chip (`nvidia-geforce-rtx-3090`)"), "{line}");
    assert!(plan.contains("the card you own of `nvidia-geforce-rtx-3090`: plan with `--own 1x CARD_ID`"), "{plan}");

    // The saved build, in a case that takes 315 mm: the reference board (313 mm) would pass.
    let saved = std::fs::read_to_string(dir.join("plan-1.rig.ron")).expect("saved plan");
    let case_line = saved.lines().find(|l| l.trim_start().starts_with("case: ")).expect("case line").to_owned();
    let in_case = saved.replace(&case_line, &format!("    case: \"{CASE_315}\","));
    let owned_chip = dir.join("owned-chip.rig.ron");
    std::fs::write(&owned_chip, &in_case).expect("write");
    let (code, text) = check(&owned_chip.to_string_lossy());
    assert_eq!(code, 3, "UNVERIFIED, not PASS:\n{text}");
    assert!(text.contains("`card id` of GeForce RTX 3090 (`nvidia-geforce-rtx-3090`)"), "{text}");
    assert!(
        text.contains("[case-gpu-fit] not checked for GPU 1 (GeForce RTX 3090): it is owned and named by its chip"),
        "{text}"
    );

    // Bought, the chip id is its reference board: the rule runs on its 313 mm and passes.
    let bought = dir.join("bought-chip.rig.ron");
    let no_owned = in_case.replace("        \"1x nvidia-geforce-rtx-3090\",\n", "");
    assert_ne!(no_owned, in_case, "the owned entry was removed");
    std::fs::write(&bought, &no_owned).expect("write");
    let (_, text) = check(&bought.to_string_lossy());
    assert!(!text.contains("owned and named by its chip"), "{text}");
    assert!(!text.contains("[case-gpu-fit] GPU 1"), "313 mm fits 315 mm:\n{text}");

    // Named, the owned Strix (318.5 mm) is checked, and does not fit the 315 mm case.
    let strix = dir.join("owned-strix.rig.ron");
    std::fs::write(&strix, in_case.replace("nvidia-geforce-rtx-3090", STRIX)).expect("write");
    let (code, text) = check(&strix.to_string_lossy());
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("is 318 mm long; ProArt PA401"), "{text}");
    assert!(!text.contains("owned and named by its chip"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chip with no partner card in the catalog (Gigabyte's RTX 3090 TURBO, a blower card entered as its own GPU entry) is
/// its card: owned, it is checked as usual.
#[test]
fn an_owned_chip_without_partner_cards_is_its_card() {
    let (code, plan, err) = kw_no_user_files(&[
        "plan",
        "--model",
        "qwen3-32b",
        "--own",
        "1x gigabyte-geforce-rtx-3090-turbo",
        "--max-results",
        "1",
    ]);
    assert_eq!(code, 0, "{plan}{err}");
    assert!(!plan.contains("not checked (your card)"), "{plan}");
    assert!(!plan.contains("owned and named by its chip"), "{plan}");
}
