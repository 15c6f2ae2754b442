//! Files written whole or not at all: the bytes go to a temporary file
//! beside the target (`<path>.tmp`), are synced, then renamed over it, so
//! a killed writer or a full disk never leaves a torn file under the real
//! name. Used by the endgame tables, the books and the trainer's weights.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically, creating its folder if needed. On
/// failure the temporary file is removed and the error names the step and
/// the file.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let result = std::fs::File::create(&tmp)
        .map_err(|e| format!("cannot create {}: {e}", tmp.display()))
        .and_then(|mut f| {
            f.write_all(bytes)
                .and_then(|_| f.sync_all())
                .map_err(|e| format!("cannot write {}: {e}", tmp.display()))
        })
        .and_then(|_| {
            std::fs::rename(&tmp, path)
                .map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), path.display()))
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_is_left() {
        let dir = std::env::temp_dir().join(format!("kondavo-files-{}", std::process::id()));
        let path = dir.join("sub").join("x.bin");
        write_whole(&path, b"first").unwrap();
        write_whole(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert!(!dir.join("sub").join("x.bin.tmp").exists());
        // A folder where the file should go: refused, nothing left behind.
        let err = write_whole(&dir.join("sub"), b"x").unwrap_err();
        assert!(err.contains("rename"), "{err}");
        assert!(!dir.join("sub.tmp").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
