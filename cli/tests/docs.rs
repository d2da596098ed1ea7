//! The READMEs' transcripts (```console blocks) run as trycmd cases, so the documented commands,
//! their output and the CLI cannot drift. `scripts/docs-check.py` lists them with every other
//! block; its header has the rules.
//!
//! Each Markdown file with a console block is copied into a scratch directory with
//! `127.0.0.1:7600` rewritten to the port of a private `idmint serve` started here on
//! `examples/server/idmint.toml` (its own data directory), and trycmd runs the copy with that
//! directory as the working directory: `idmint` is this build, `curl` the one on `PATH`. A
//! failure names the copy's path and line, which are the README's line. Files one after
//! another, each with a service and a directory of its own.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_idmint");

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every *.md outside build output, as docs-check.py walks them.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if !name.starts_with('.')
                && !["target", "node_modules", "dist", "pkg"].contains(&name.as_str())
            {
                markdown_files(&p, out);
            }
        } else if name.ends_with(".md") {
            out.push(p);
        }
    }
}

fn has_console_block(text: &str) -> bool {
    text.lines()
        .any(|l| l.trim_start().starts_with("```console"))
}

/// `name` as the shell would find it on `PATH` (scripts/setup.sh installs curl).
fn on_path(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|f| f.is_file())
        })
        .unwrap_or_else(|| panic!("{name} is not on PATH (bash scripts/setup.sh servers)"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn ready(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let req =
        format!("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut raw = String::new();
    s.write_all(req.as_bytes()).is_ok()
        && s.read_to_string(&mut raw).is_ok()
        && raw.starts_with("HTTP/1.1 200")
}

/// `idmint serve` on the example config, on `port`, stopped (SIGTERM) when dropped.
struct Service(Child);

impl Service {
    fn start(port: u16, data_dir: &Path) -> Service {
        let child = Command::new(BIN)
            .args(["serve", "--config"])
            .arg(repo_root().join("examples/server/idmint.toml"))
            .args(["--listen", &format!("127.0.0.1:{port}"), "--log", "warn"])
            .arg("--data-dir")
            .arg(data_dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("start idmint serve");
        let t = Instant::now();
        while !ready(port) {
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "idmint serve never became ready"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Service(child)
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

#[test]
fn readme_transcripts_run_as_shown() {
    let root = repo_root();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| has_console_block(&std::fs::read_to_string(f).unwrap()))
        .collect();
    assert!(!files.is_empty(), "no ```console block in any README");

    let scratch = std::env::temp_dir().join(format!("idmint-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    // One file at a time, each with a service and a working directory of its own, so the IDs
    // and files a transcript shows do not depend on another file's.
    let curl = on_path("curl");
    for (i, f) in files.iter().enumerate() {
        let rel = f.strip_prefix(&root).unwrap();
        let dir = scratch.join(i.to_string());
        let (copy, work) = (dir.join("case").join(rel), dir.join("work"));
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let port = free_port();
        let service = Service::start(port, &dir.join("service"));
        let text = std::fs::read_to_string(f)
            .unwrap()
            .replace("127.0.0.1:7600", &format!("127.0.0.1:{port}"));
        std::fs::write(&copy, text).unwrap();
        // The commands run here: files they write stay out of the checkout.
        std::env::set_current_dir(&work).unwrap();
        trycmd::TestCases::new()
            .register_bin("idmint", Path::new(BIN))
            .register_bin("curl", curl.as_path())
            .env("IDMINT_LEASE_DIR", dir.join("leases").display().to_string())
            .case(&copy)
            .run();
        drop(service);
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
