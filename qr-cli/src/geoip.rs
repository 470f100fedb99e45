//! `qr geoip update`: downloads a City database (GeoLite2-City with a licence key, or DB-IP City
//! Lite without one), checks that it opens and is a City database, and replaces the server's file
//! atomically, so a running server reloads it within seconds.
//!
//! The licence key travels only in the request's query: every URL shown says `REDACTED` in its
//! place, and any text that could echo it (an error, a server's answer) has it removed.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use clap::{Args, Subcommand};
use qr_domain::MaxMindLocator;
use serde::Serialize;

use crate::error::usage;
use crate::output;

/// MaxMind's download endpoint for an edition and a licence key (its documented URL form).
const MAXMIND_URL: &str = "https://download.maxmind.com/app/geoip_download";
/// Most bytes downloaded: GeoLite2-City is about 35 MB as tar.gz and DB-IP City Lite about
/// 60 MB as .mmdb.gz (2024); 512 MiB leaves room for years of growth and bounds a hostile server.
const MAX_DOWNLOAD_BYTES: u64 = 512 << 20;
/// Most bytes of the database once decompressed: GeoLite2-City is about 70 MB and DB-IP City
/// Lite about 130 MB; 1 GiB bounds a decompression bomb.
const MAX_DATABASE_BYTES: u64 = 1 << 30;
/// The whole download's deadline: 60 MB at 1 Mbit/s takes 8 minutes.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Connecting's deadline.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// `qr geoip`.
#[derive(Debug, Args)]
pub struct GeoipArgs {
    #[command(subcommand)]
    command: GeoipCommand,
}

#[derive(Debug, Subcommand)]
enum GeoipCommand {
    /// Downloads a City database and replaces the file atomically; a running server reloads it
    /// within 2 seconds. With a MaxMind licence key: GeoLite2-City (a tar.gz); without: DB-IP
    /// City Lite (a .mmdb.gz, no key needed, CC BY 4.0: credit DB-IP where locations are shown).
    Update(UpdateArgs),
}

#[derive(Debug, Args)]
struct UpdateArgs {
    /// The database file to replace, the one `qr serve` reads.
    #[arg(long, env = "QR_GEOIP_DB", value_name = "FILE")]
    geoip_db: PathBuf,
    /// A MaxMind licence key (free with a GeoLite2 account): downloads `--edition` from MaxMind.
    /// Never printed or logged.
    #[arg(
        long,
        env = "QR_MAXMIND_LICENSE_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    license_key: Option<String>,
    /// The MaxMind edition to download with a licence key.
    #[arg(long, default_value = "GeoLite2-City", value_name = "EDITION")]
    edition: String,
    /// Where to download from. With a licence key, `edition_id`, `license_key` and
    /// `suffix=tar.gz` are added to its query [default: MaxMind's
    /// <https://download.maxmind.com/app/geoip_download>]; without one, the file at the URL is
    /// fetched as it is (.mmdb.gz, .tar.gz or .mmdb) [default: this month's DB-IP City Lite,
    /// <https://download.db-ip.com/free/dbip-city-lite-YYYY-MM.mmdb.gz>].
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Print `{path, databaseType, builtAt, bytes}` as JSON.
    #[arg(long)]
    json: bool,
}

/// What was installed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Installed {
    path: String,
    database_type: String,
    built_at: Option<String>,
    bytes: u64,
}

/// Runs `qr geoip`.
pub fn run(args: GeoipArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    match args.command {
        GeoipCommand::Update(args) => update(args, out),
    }
}

/// The request: the URL to fetch, the same with the key redacted, and the key to scrub.
struct Source {
    url: String,
    shown: String,
    secret: Option<String>,
}

impl Source {
    fn of(args: &UpdateArgs, today: chrono::NaiveDate) -> anyhow::Result<Self> {
        let key = args
            .license_key
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty());
        let Some(key) = key else {
            let url = args.url.clone().unwrap_or_else(|| {
                format!(
                    "https://download.db-ip.com/free/dbip-city-lite-{}.mmdb.gz",
                    today.format("%Y-%m")
                )
            });
            parse_http_url(&url)?;
            return Ok(Self {
                shown: url.clone(),
                url,
                secret: None,
            });
        };
        if args.edition.is_empty()
            || !args
                .edition
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(usage(format!(
                "invalid --edition {:?}: a MaxMind edition such as GeoLite2-City",
                args.edition
            )));
        }
        let base = parse_http_url(args.url.as_deref().unwrap_or(MAXMIND_URL))?;
        let with = |value: &str| {
            let mut url = base.clone();
            url.query_pairs_mut()
                .append_pair("edition_id", &args.edition)
                .append_pair("license_key", value)
                .append_pair("suffix", "tar.gz");
            url.to_string()
        };
        Ok(Self {
            url: with(key),
            shown: with("REDACTED"),
            secret: Some(key.to_owned()),
        })
    }

    /// `text` with the licence key removed.
    fn scrub(&self, text: &str) -> String {
        match &self.secret {
            Some(key) => text.replace(key.as_str(), "REDACTED"),
            None => text.to_owned(),
        }
    }
}

fn parse_http_url(text: &str) -> anyhow::Result<url::Url> {
    let url = url::Url::parse(text).map_err(|e| usage(format!("invalid --url {text:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(usage(format!(
            "invalid --url {text:?}: an http or https URL is needed"
        )));
    }
    Ok(url)
}

fn update(args: UpdateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let source = Source::of(&args, chrono::Utc::now().date_naive())?;
    let target = &args.geoip_db;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| usage(format!("--geoip-db {} names no file", target.display())))?;
    // The new database is written beside the old one, so the final rename stays on one file
    // system and is atomic; the temporary file is removed on any failure.
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{}.", file_name.to_string_lossy()))
        .suffix(".download")
        .tempfile_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let bytes = download(&source, temp.as_file_mut())
        .map_err(|e| anyhow!("{}", source.scrub(&crate::error::with_sources(e.as_ref()))))?;
    temp.as_file().sync_all()?;
    let db = MaxMindLocator::open(temp.path()).map_err(|e| {
        anyhow!(
            "the download from {} is not a usable City database ({e}); {} is unchanged",
            source.shown,
            target.display()
        )
    })?;
    // The new file keeps the old one's permissions (a server running as another user must
    // still read it); a first install is readable by all, as the database holds no secret.
    match std::fs::metadata(target) {
        Ok(old) => std::fs::set_permissions(temp.path(), old.permissions())?,
        Err(_) => set_readable(temp.path())?,
    }
    temp.persist(target)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    // The rename is durable once the directory is: a crash now leaves the old or the new file.
    File::open(&dir).and_then(|d| d.sync_all()).ok();
    let installed = Installed {
        path: target.display().to_string(),
        database_type: db.database_type().to_owned(),
        built_at: db.built_at().map(|t| t.format("%Y-%m-%d").to_string()),
        bytes,
    };
    if args.json {
        return output::write_json(out, &installed);
    }
    writeln!(
        out,
        "Installed {} ({}, built {}, {} bytes) from {}",
        installed.path,
        installed.database_type,
        installed
            .built_at
            .as_deref()
            .unwrap_or("on an unknown date"),
        installed.bytes,
        source.shown
    )?;
    Ok(())
}

#[cfg(unix)]
fn set_readable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_readable(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Fetches the source and writes the database (unpacked) to `dest`; returns its size.
fn download(source: &Source, dest: &mut File) -> anyhow::Result<u64> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .user_agent(concat!("qr-platform/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent
        .get(&source.url)
        .call()
        .map_err(|e| anyhow!("cannot download {}: {e}", source.shown))?;
    let status = response.status();
    if !status.is_success() {
        // MaxMind says why in a short text body ("Invalid license key"): show its first line.
        let mut body = String::new();
        let _ = response
            .body_mut()
            .as_reader()
            .take(512)
            .read_to_string(&mut body);
        let reason = body.lines().next().unwrap_or("").trim();
        bail!(
            "cannot download {}: the server answered HTTP {}{}",
            source.shown,
            status.as_u16(),
            if reason.is_empty() {
                String::new()
            } else {
                format!(" ({reason})")
            }
        );
    }
    let body = response
        .into_body()
        .into_with_config()
        .limit(MAX_DOWNLOAD_BYTES)
        .reader();
    unpack(BufReader::new(body), dest)
}

/// Writes the database inside `input` (a tar.gz holding a `.mmdb`, a `.mmdb.gz`, or a bare
/// `.mmdb`, told apart by their content, not their names) to `dest`.
fn unpack(mut input: impl BufRead, dest: &mut File) -> anyhow::Result<u64> {
    let gzip = input.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    if !gzip {
        return copy_bounded(input, dest);
    }
    let mut inflated = flate2::bufread::MultiGzDecoder::new(input);
    // A tar archive has `ustar` at offset 257 of its first 512-byte header.
    let mut head = Vec::with_capacity(512);
    (&mut inflated)
        .take(512)
        .read_to_end(&mut head)
        .context("the download is not valid gzip")?;
    let is_tar = head.get(257..262) == Some(b"ustar".as_slice());
    let inflated = io::Cursor::new(head).chain(inflated);
    if !is_tar {
        return copy_bounded(inflated, dest);
    }
    let mut archive = tar::Archive::new(inflated);
    for entry in archive
        .entries()
        .context("the download is not a valid tar.gz")?
    {
        let entry = entry.context("the download is not a valid tar.gz")?;
        let is_db = entry.header().entry_type().is_file()
            && entry
                .path()
                .ok()
                .and_then(|p| p.extension().map(|e| e == "mmdb"))
                .unwrap_or(false);
        if is_db {
            return copy_bounded(entry, dest);
        }
    }
    bail!("the archive holds no .mmdb file")
}

/// Copies at most [`MAX_DATABASE_BYTES`]; more is refused as no real City database is that big.
fn copy_bounded(input: impl Read, dest: &mut File) -> anyhow::Result<u64> {
    let copied = io::copy(&mut input.take(MAX_DATABASE_BYTES + 1), dest)
        .context("the download could not be read to its end")?;
    if copied > MAX_DATABASE_BYTES {
        bail!("the database is larger than {MAX_DATABASE_BYTES} bytes once unpacked");
    }
    if copied == 0 {
        bail!("the download is empty");
    }
    Ok(copied)
}
