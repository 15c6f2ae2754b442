//! Embeds the learned evaluation's weights: every `weights/<variant>.kdw`
//! file present at build time becomes part of the binary.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=weights");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dir = manifest.join("weights");
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "kdw"))
                .filter_map(|p| {
                    let stem = p.file_stem()?.to_str()?.to_string();
                    Some((stem, p))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut code = String::from("/// Weights files embedded at build time: (variant, bytes).\n");
    code.push_str("pub static EMBEDDED: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        code.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets it")).join("weights.rs");
    std::fs::write(out, code).expect("write weights.rs");
}
