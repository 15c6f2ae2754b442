//! Embeds the learned evaluation's weights and the opening books: every
//! `weights/<variant>.kdw` and `books/<variant>.kdb` file present at build
//! time becomes part of the binary (a build without them still builds).

use std::path::{Path, PathBuf};

fn main() {
    embed("weights", "kdw", "weights.rs", "Weights files");
    embed("books", "kdb", "books.rs", "Opening books");
}

/// Writes `$OUT_DIR/<out>`: a static `EMBEDDED` list of (variant, bytes)
/// of every `<folder>/<variant>.<ext>` file.
fn embed(folder: &str, ext: &str, out: &str, what: &str) {
    println!("cargo::rerun-if-changed={folder}");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dir = manifest.join(folder);
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .filter_map(|p| {
                    let stem = p.file_stem()?.to_str()?.to_string();
                    Some((stem, p))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut code = format!("/// {what} embedded at build time: (variant, bytes).\n");
    code.push_str("pub static EMBEDDED: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        code.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("];\n");
    let path = Path::new(&std::env::var("OUT_DIR").expect("cargo sets it")).join(out);
    std::fs::write(path, code).expect("write the embedded files' list");
}
