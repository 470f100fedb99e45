//! The archive of a bulk link request with `qrcodes` (`POST /api/links/bulk`, `qr links import --zip`): each created link's code, encoding its short URL, named by its short code, then `links.csv` and `errors.json`.

use qr_domain::Link;
use qr_domain::links::bulk::BulkFailure;
use qr_generate::Code;
use qr_generate::batch::{BatchError, render_codes, write_zip_with};

use crate::csv_line;

/// The list of the created links inside the archive.
pub const LINKS_CSV: &str = "links.csv";
/// The file name offered for the archive's download.
pub const BULK_FILE_NAME: &str = "links.zip";

/// Renders the code of every created link (`(index, link)`, as `BulkOutcome::created`), given
/// in `codes` in the same order (each in its link's design, or why it could not be made), and
/// writes the archive: the images (`<shortCode>.png` …), `links.csv` (`id, name, shortCode,
/// shortUrl, targetUrl`, cells defused as in exports) and `errors.json` (always; the request's
/// failures, and any code that could not be rendered, by item index).
pub fn links_archive(
    created: &[(usize, Link)],
    codes: Vec<Result<Code, String>>,
    short_url: &dyn Fn(&Link) -> String,
    failures: &[BulkFailure],
) -> Result<Vec<u8>, BatchError> {
    let named = created
        .iter()
        .zip(codes)
        .map(|((_, link), code)| (link.short_code.to_string(), code))
        .collect();
    let mut outcome = render_codes(named);
    // errors.json lists items of the request: a code that failed to render is its link's item.
    let mut errors: Vec<BulkFailure> = failures.to_vec();
    errors.extend(outcome.errors.drain(..).filter_map(|e| {
        let (index, link) = created.get(e.index)?;
        Some(BulkFailure {
            index: *index,
            data: link.target_url.as_str().to_owned(),
            error: format!(
                "Link {} created, but its code failed: {}",
                link.short_code, e.error
            ),
        })
    }));
    errors.sort_by_key(|e| e.index);
    outcome.errors = errors
        .into_iter()
        .map(|e| qr_generate::batch::ItemError {
            index: e.index,
            data: e.data,
            error: e.error,
        })
        .collect();
    let mut csv = String::from("id,name,shortCode,shortUrl,targetUrl\n");
    for (_, link) in created {
        csv_line(
            &mut csv,
            &[
                &link.id.to_string(),
                link.name.as_str(),
                link.short_code.as_str(),
                &short_url(link),
                link.target_url.as_str(),
            ],
        );
    }
    write_zip_with(&outcome, &[(LINKS_CSV, csv.as_bytes())], true)
}
