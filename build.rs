//! Embeds the learned evaluation's weights and the opening books: every
//! `weights/<variant>.kdw` and `books/<variant>.kdb` file present at build
//! time becomes part of the binary (a build without them still builds).
//! The web board's files (everything under `web/`) are embedded the same
//! way, so `kondavo serve` needs no file beside the binary.

use std::path::{Path, PathBuf};

fn main() {
    embed("weights", "kdw", "weights.rs", "Weights files");
    embed("books", "kdb", "books.rs", "Opening books");
    embed_web();
}

/// Writes `$OUT_DIR/web.rs`: a static `WEB_FILES` list of (path under
/// `web/` with `/` separators, bytes) of every file under `web/`, hidden
/// files and folders left out.
fn embed_web() {
    println!("cargo::rerun-if-changed=web");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("web");
    let mut files = Vec::new();
    walk(&root, "", &mut files);
    files.sort();
    let mut code =
        String::from("/// The web board's files embedded at build time: (path, bytes).\n");
    code.push_str("pub static WEB_FILES: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        code.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("];\n");
    let path = Path::new(&std::env::var("OUT_DIR").expect("cargo sets it")).join("web.rs");
    std::fs::write(path, code).expect("write the web files' list");
}

/// Collects the files under `dir` (named from `prefix`), skipping names
/// that start with a dot and `node_modules` folders.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.filter_map(Result::ok) {
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let path = e.path();
        let rel = format!("{prefix}{name}");
        if path.is_dir() {
            walk(&path, &format!("{rel}/"), out);
        } else if path.is_file() {
            out.push((rel, path));
        }
    }
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
