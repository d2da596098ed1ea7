//! Throwaway TLS certificates for servers the tests start: a private CA and a server
//! certificate for `127.0.0.1` and `localhost` signed by it, made with the `openssl` command
//! (installed by scripts/setup.sh).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files of one test PKI, in one directory.
#[derive(Debug, Clone)]
pub struct TestPki {
    /// The CA certificate clients trust (PEM).
    pub ca_cert: PathBuf,
    /// The server certificate (PEM), valid for `127.0.0.1` and `localhost`.
    pub server_cert: PathBuf,
    /// The server's private key (PEM, mode 0600).
    pub server_key: PathBuf,
    /// A second CA that signed nothing here: a client trusting only it must refuse the server.
    pub other_ca_cert: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run openssl (install it with scripts/setup.sh)");
    assert!(
        out.status.success(),
        "openssl {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes a CA, a server certificate signed by it and an unrelated second CA in `dir`.
pub fn make_pki(dir: &Path) -> TestPki {
    std::fs::create_dir_all(dir).unwrap();
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    for ca in ["ca", "other-ca"] {
        let mut args = vec!["req", "-x509"];
        args.extend(ec);
        let key = format!("{ca}.key");
        let crt = format!("{ca}.crt");
        args.extend([
            "-keyout",
            &key,
            "-out",
            &crt,
            "-days",
            "3",
            "-subj",
            "/CN=idmint test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
        openssl(dir, &args);
    }
    let mut args = vec!["req"];
    args.extend(ec);
    args.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    openssl(dir, &args);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n\
         basicConstraints=critical,CA:FALSE\n\
         keyUsage=critical,digitalSignature,keyEncipherment\n\
         extendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "3",
            "-extfile",
            "server.ext",
        ],
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    TestPki {
        ca_cert: dir.join("ca.crt"),
        server_cert: dir.join("server.crt"),
        server_key: dir.join("server.key"),
        other_ca_cert: dir.join("other-ca.crt"),
    }
}
