//! `qr print`: an account's links (by id, tag or all) or data items from a file on label sheets, one PDF, as `POST /api/print` makes it.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{ArgGroup, Args, ValueEnum};
use qr_generate::batch::BatchRequest;
use qr_generate::print::{
    CaptionKind, CustomGrid, DEFAULT_MARGIN_MM, LabelStock, Layout, Paper, PrintRequest,
    PrintSelection, PrintSheet, items_of_batch,
};

use crate::batch::{self, InputFormat};
use crate::db::{self, Create, DbArgs};
use crate::error::usage;

/// `qr print`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("selection").required(true).args(["id", "tag", "all", "items"])))]
#[command(after_long_help = "\
Links are the account's own (--email), each drawn in its design, their codes encoding
BASE_URL/r/CODE (or their domain's address). Data items come from a CSV or JSON Lines file with
the fields of qr batch (data and the generate parameters; filename is not used).

The plan's batch rules apply as in the API: below Pro is refused, Pro prints at most 100 codes
and Enterprise 1,000 per run. Crop marks are hairlines in the margin along the cell edges.")]
pub struct PrintArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The account's e-mail address.
    #[arg(long, value_parser = db::parse_email)]
    email: String,
    /// A link's id (repeat it for each, printed in this order).
    #[arg(long, value_name = "ID")]
    id: Vec<String>,
    /// The account's links with this tag, oldest first.
    #[arg(long, value_name = "TAG")]
    tag: Option<String>,
    /// All of the account's links, oldest first.
    #[arg(long)]
    all: bool,
    /// Data items from a CSV or JSON Lines file (`-` reads standard input).
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// The paper [default: the layout's; a4 for a custom grid].
    #[arg(long, value_enum)]
    paper: Option<PaperArg>,
    /// The label stock, or custom (--columns and --rows) [default: L7160 on A4, 5160 on Letter].
    #[arg(long, value_name = "LAYOUT", value_parser = parse_layout)]
    layout: Option<LayoutArg>,
    /// Custom grid: cells across (1 to 10).
    #[arg(long, requires = "rows")]
    columns: Option<u32>,
    /// Custom grid: cells down (1 to 20).
    #[arg(long, requires = "columns")]
    rows: Option<u32>,
    /// Custom grid: left and right margins in mm.
    #[arg(long, value_name = "MM", default_value_t = DEFAULT_MARGIN_MM)]
    margin_x: f64,
    /// Custom grid: top and bottom margins in mm.
    #[arg(long, value_name = "MM", default_value_t = DEFAULT_MARGIN_MM)]
    margin_y: f64,
    /// Custom grid: the gap between columns in mm.
    #[arg(long, value_name = "MM", default_value_t = 0.0)]
    gutter_x: f64,
    /// Custom grid: the gap between rows in mm.
    #[arg(long, value_name = "MM", default_value_t = 0.0)]
    gutter_y: f64,
    /// What the line under each code says.
    #[arg(long, value_enum, default_value_t = CaptionArg::Data)]
    caption: CaptionArg,
    /// Hairlines in the margin along every cell edge, for cutting plain paper.
    #[arg(long)]
    crop_marks: bool,
    /// The service's public address, which links' codes encode.
    #[arg(long, env = "QR_BASE_URL", value_name = "URL")]
    base_url: Option<String>,
    /// Where to write the PDF (`-` for standard output).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// A paper on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PaperArg {
    /// ISO A4, 210 x 297 mm.
    A4,
    /// US Letter, 8.5 x 11 in.
    Letter,
}

/// A layout on the command line: a stock or a custom grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LayoutArg {
    Stock(LabelStock),
    Custom,
}

fn parse_layout(raw: &str) -> Result<LayoutArg, String> {
    if raw.trim().eq_ignore_ascii_case("custom") {
        return Ok(LayoutArg::Custom);
    }
    LabelStock::parse(raw)
        .map(LayoutArg::Stock)
        .ok_or_else(|| "use L7160, L7163, 5160 or custom".to_owned())
}

/// What captions say on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CaptionArg {
    /// The code's content: a link's short URL, an item's data.
    Data,
    /// A link's name.
    Name,
    /// No caption.
    None,
}

/// Runs `qr print`.
pub fn run(args: PrintArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let to_stdout = args.output == Path::new("-");
    if to_stdout && std::io::stdout().is_terminal() {
        return Err(usage(
            "refusing to write a PDF to the terminal: use -o FILE or redirect standard output",
        ));
    }
    let paper = args.paper.map(|p| match p {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    });
    let layout = match (args.layout, args.columns.zip(args.rows)) {
        (Some(LayoutArg::Custom) | None, Some((columns, rows))) => Layout::Custom(CustomGrid {
            columns,
            rows,
            margin_x: args.margin_x,
            margin_y: args.margin_y,
            gutter_x: args.gutter_x,
            gutter_y: args.gutter_y,
        }),
        (Some(LayoutArg::Custom), None) => {
            return Err(usage("--layout custom needs --columns and --rows"));
        }
        (Some(LayoutArg::Stock(_)), Some(_)) => {
            return Err(usage(
                "--columns and --rows make a custom grid: leave out --layout or give --layout custom",
            ));
        }
        (Some(LayoutArg::Stock(stock)), None) => Layout::Stock(stock),
        (None, None) => Layout::Stock(match paper {
            Some(Paper::Letter) => LabelStock::Avery5160,
            _ => LabelStock::L7160,
        }),
    };
    let crop_marks = if args.crop_marks {
        qr_core::CropMarks::AtCellEdges
    } else {
        qr_core::CropMarks::None
    };
    let sheet = PrintSheet::new(layout, paper, crop_marks).map_err(|e| usage(e.to_string()))?;
    let selection = if let Some(path) = &args.items {
        PrintSelection::Items(read_items(path)?)
    } else if let Some(tag) = args.tag {
        PrintSelection::Tag(tag)
    } else if args.all {
        PrintSelection::AllLinks
    } else {
        PrintSelection::LinkIds(args.id)
    };
    let base_url = match (&selection, args.base_url) {
        (PrintSelection::Items(_), base) => base.unwrap_or_default(),
        (_, Some(base)) => base.trim_end_matches('/').to_owned(),
        (_, None) => {
            return Err(usage(
                "printing links needs --base-url (or QR_BASE_URL): their codes encode the short URL",
            ));
        }
    };
    let request = PrintRequest {
        sheet,
        caption: match args.caption {
            CaptionArg::Data => CaptionKind::Data,
            CaptionArg::Name => CaptionKind::Name,
            CaptionArg::None => CaptionKind::None,
        },
        selection,
    };
    let service = args.db.open(Create::Never)?;
    let account = db::account_by_email(&service, &args.email)?;
    let pdf = service.print_sheet(&account, &request, &base_url)?;
    if to_stdout {
        out.write_all(&pdf)?;
        out.flush()?;
    } else {
        std::fs::write(&args.output, &pdf)
            .with_context(|| format!("cannot write {}", args.output.display()))?;
        eprintln!("qr: wrote {} ({} bytes)", args.output.display(), pdf.len());
    }
    Ok(())
}

/// The data items of a CSV or JSON Lines file, read as `qr batch` reads its input.
fn read_items(path: &Path) -> anyhow::Result<Vec<qr_generate::print::PrintItem>> {
    let input = batch::read_input(path)?;
    let items = match batch::detect(path, &input) {
        InputFormat::Csv => batch::parse_csv(&input)?,
        InputFormat::Jsonl => batch::parse_jsonl(&input)?,
    };
    if items.is_empty() {
        anyhow::bail!("{} has no items", batch::display(path));
    }
    let request = BatchRequest {
        items,
        defaults: Default::default(),
    };
    Ok(items_of_batch(&request)?)
}
