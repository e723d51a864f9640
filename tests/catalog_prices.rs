//! The user's price file overrides catalog prices by id, reaches cards resolved against their
//! chip, is saved atomically, and a bad file is a located error while the catalog still loads.

use kraftwerk::catalog::{self, LoadProblem, prices};

#[test]
fn user_prices_override_catalog_prices() {
    let dir = std::env::temp_dir().join(format!("kraftwerk-prices-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("prices.ron");
    let mut file = prices::PriceFile::default();
    file.prices.insert("nvidia-geforce-rtx-3090".into(), prices::UserPrice { usd: 750.0, date: "2026-11-01".into() });
    file.prices.insert(
        "asus-turbo-geforce-rtx-3090-24gb-gddr6x-black".into(),
        prices::UserPrice { usd: 820.0, date: "2026-11-02".into() },
    );
    file.prices.insert("no-such-part".into(), prices::UserPrice { usd: 1.0, date: "2026-11-03".into() });
    prices::save_prices(&path, &file).expect("save");
    assert_eq!(prices::load_prices(&path).expect("load"), file);

    let mut c = catalog::builtin().expect("catalog");
    let unknown = c.apply_prices(&file);
    assert_eq!(unknown, vec!["no-such-part".to_owned()]);
    assert_eq!(c.gpu("nvidia-geforce-rtx-3090").and_then(|g| g.price_usd), Some(750.0));
    let card = c.gpu_or_card("asus-turbo-geforce-rtx-3090-24gb-gddr6x-black").expect("card");
    assert_eq!((card.price_usd, card.price_date.as_deref()), (Some(820.0), Some("2026-11-02")));

    // Through the normal load path (the only test in this binary that sets the variable).
    // SAFETY of the environment: this test binary runs this single test.
    unsafe_env_set(&path);
    let (c, problems) = catalog::load_with_user_dir(None).expect("load");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(c.gpu("nvidia-geforce-rtx-3090").and_then(|g| g.price_usd), Some(750.0));

    std::fs::write(&path, "(prices: {\"x\": (usd: \"cheap\", date: \"2026\")})").expect("write");
    let (_, problems) = catalog::load_with_user_dir(None).expect("the catalog still loads");
    assert!(matches!(problems.as_slice(), [LoadProblem::BadFile(e)] if e.line == 1), "{problems:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[allow(unsafe_code)]
fn unsafe_env_set(path: &std::path::Path) {
    // Edition 2024: set_var is unsafe because other threads may read the environment; no other
    // thread of this test binary does.
    unsafe { std::env::set_var("KRAFTWERK_PRICES", path) };
}
