//! `/dashboard/links/print`: label sheets of the account's links as a PDF (the domain's `Service::print_sheet`, as `POST /api/print`): a label stock or a custom grid, the captions, crop marks, and all links or those with a tag, each code in its link's design.

use askama::Template;
use http::StatusCode;
use qr_core::CropMarks;
use qr_domain::print::PrintError;
use qr_domain::{Clock, Store};
use qr_generate::print::{
    self as sheet, CaptionKind, CustomGrid, LabelStock, Layout, Paper, PrintRequest,
    PrintSelection, PrintSheet,
};

use super::{Failure, Layout as PageLayout, User, page, read_or_post};
use crate::Web;
use crate::request::Fields;
use crate::response::{self, WebResponse};

/// A choice of a select: its value, its label, whether it is chosen.
struct Choice {
    value: &'static str,
    label: String,
    selected: bool,
}

#[derive(Template)]
#[template(path = "print.html")]
struct PrintPage {
    layout: PageLayout,
    csrf: String,
    layouts: Vec<Choice>,
    papers: Vec<Choice>,
    captions: Vec<Choice>,
    columns: String,
    rows: String,
    crop_marks: bool,
    tag: String,
    /// The plan's bound of codes per sheet request, or why the plan cannot print.
    bound: String,
    error: Option<String>,
}

/// The form as posted (or its defaults: L7160, short URLs as captions, every link).
struct PrintForm {
    layout: String,
    paper: String,
    caption: String,
    columns: String,
    rows: String,
    crop_marks: bool,
    tag: String,
}

impl PrintForm {
    fn defaults() -> Self {
        Self {
            layout: LabelStock::L7160.name().to_owned(),
            paper: Paper::A4.name().to_owned(),
            caption: CaptionKind::Data.name().to_owned(),
            columns: "4".to_owned(),
            rows: "6".to_owned(),
            crop_marks: false,
            tag: String::new(),
        }
    }

    fn of(fields: &Fields) -> Self {
        Self {
            layout: fields.text("layout").trim().to_owned(),
            paper: fields.text("paper").trim().to_owned(),
            caption: fields.text("caption").trim().to_owned(),
            columns: fields.text("columns").trim().to_owned(),
            rows: fields.text("rows").trim().to_owned(),
            crop_marks: fields.get("cropMarks").is_some(),
            tag: fields.text("tag").trim().to_owned(),
        }
    }

    /// The print request the form describes; reading the text is this page's, every rule
    /// (bounds, stock and paper, the plan) the print module's and the domain's.
    fn request(&self) -> Result<PrintRequest, sheet::PrintError> {
        let paper = Paper::read(&self.paper)?;
        let layout = if self.layout == "custom" {
            let whole = |field: &'static str, text: &str| {
                text.parse::<u32>()
                    .map_err(|_| invalid(field, "it must be a whole number"))
            };
            Layout::Custom(CustomGrid::new(
                whole("grid.columns", &self.columns)?,
                whole("grid.rows", &self.rows)?,
            ))
        } else {
            Layout::Stock(LabelStock::read(&self.layout)?)
        };
        // A stock brings its own paper: the paper select is for custom grids.
        let paper = matches!(layout, Layout::Custom(_)).then_some(paper);
        let crop_marks = if self.crop_marks {
            CropMarks::AtCellEdges
        } else {
            CropMarks::None
        };
        let caption = CaptionKind::read(&self.caption)?;
        let selection = if self.tag.is_empty() {
            PrintSelection::AllLinks
        } else {
            PrintSelection::Tag(self.tag.clone())
        };
        Ok(PrintRequest {
            sheet: PrintSheet::new(layout, paper, crop_marks)?,
            caption,
            selection,
        })
    }
}

/// A paper as people name it.
fn paper_label(paper: Paper) -> &'static str {
    match paper {
        Paper::A4 => "A4",
        Paper::Letter => "Letter",
    }
}

fn invalid(field: &'static str, rule: &str) -> sheet::PrintError {
    sheet::PrintError::Invalid {
        field,
        rule: rule.to_owned(),
    }
}

/// `GET` shows the form; `POST` answers the sheet as a PDF download, or the form with the
/// refusal (422 for the request, 403 below Pro).
pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    read_or_post(user.req)?;
    if user.req.is_read() {
        return form_page(user, &PrintForm::defaults(), StatusCode::OK, None);
    }
    let form = PrintForm::of(&user.form()?);
    let request = match form.request() {
        Ok(request) => request,
        Err(e) => {
            return form_page(
                user,
                &form,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(e.to_string()),
            );
        }
    };
    match web
        .service
        .print_sheet(&user.ctx.account, &request, &web.base_url)
    {
        Ok(pdf) => Ok(response::image(
            qr_core::Format::Pdf,
            pdf,
            Some(&sheet::file_name(&request.sheet)),
        )),
        Err(PrintError::Store(e)) => Err(e.into()),
        Err(e @ PrintError::Access(_)) => {
            form_page(user, &form, StatusCode::FORBIDDEN, Some(e.to_string()))
        }
        Err(e) => form_page(
            user,
            &form,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(e.to_string()),
        ),
    }
}

fn form_page(
    user: &User<'_>,
    form: &PrintForm,
    status: StatusCode,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let limits = user.ctx.account.limits();
    let layouts = LabelStock::ALL
        .iter()
        .map(|stock| {
            let grid = stock.grid();
            let (_, _, width, height) = grid.cell(0);
            (
                stock.name(),
                format!(
                    "Avery {}: {} labels of {width:.1} x {height:.1} mm on {}",
                    stock.name(),
                    grid.cells_per_page(),
                    paper_label(stock.paper())
                ),
            )
        })
        .chain([("custom", "Your own grid on plain paper or card".to_owned())])
        .map(|(value, label)| Choice {
            selected: form.layout.eq_ignore_ascii_case(value),
            value,
            label,
        })
        .collect();
    let papers = Paper::ALL
        .iter()
        .map(|p| Choice {
            value: p.name(),
            label: paper_label(*p).to_owned(),
            selected: form.paper.eq_ignore_ascii_case(p.name()),
        })
        .collect();
    let captions = [
        (CaptionKind::Data, "The short URL"),
        (CaptionKind::Name, "The link's name"),
        (CaptionKind::None, "No caption"),
    ]
    .iter()
    .map(|(kind, label)| Choice {
        value: kind.name(),
        label: (*label).to_owned(),
        selected: form.caption.eq_ignore_ascii_case(kind.name()),
    })
    .collect();
    let bound = match limits.batch {
        Some(batch) => format!(
            "Up to {} codes per sheet request on your plan.",
            batch.max_items
        ),
        None => "Label sheets are part of the Pro and Enterprise plans.".to_owned(),
    };
    let view = PrintPage {
        layout: user.layout("Print labels", "links"),
        csrf: user.csrf(),
        layouts,
        papers,
        captions,
        columns: form.columns.clone(),
        rows: form.rows.clone(),
        crop_marks: form.crop_marks,
        tag: form.tag.clone(),
        bound,
        error,
    };
    page(status, &view)
}
