//! The workspace switcher: the form in every page's header that shows another of the user's workspaces in this session.

use qr_domain::{Clock, Store};

use super::{Failure, User};
use crate::Web;
use crate::response::{WebResponse, redirect};

/// `POST /dashboard/workspaces/switch` with `workspace`: shows that workspace from the next
/// page on. One the user does not belong to (or a malformed id) answers as a page that does
/// not exist, so another workspace's id gives nothing away.
pub(super) fn switch<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let target = form
        .text("workspace")
        .parse()
        .map_err(|_| Failure::NotFound)?;
    if web.service.switch_workspace(&user.ctx, target)? {
        Ok(redirect("/dashboard"))
    } else {
        Err(Failure::NotFound)
    }
}
