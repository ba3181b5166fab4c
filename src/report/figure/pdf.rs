//! SVG → PDF in pure Rust: usvg parses the figure with a font database holding only the
//! bundled DejaVu Sans (no system font is read), svg2pdf writes a one-page PDF with the
//! font subset and embedded. The output is deterministic — svg2pdf writes no date and no
//! random id, but it writes its fonts in a `HashMap`'s order, so two fonts would come out
//! in either order from run to run: the figures use the one face (italic is that face
//! slanted, [`super::text::ITALIC_SKEW_DEG`]). `tests/figures_pdf.rs` converts again and
//! compares bytes.

use super::text::{FONT_FAMILY, FONT_REGULAR};
use std::sync::{Arc, OnceLock};

/// usvg's CSS pixel: 96 per inch. The PDF page is the SVG's size in inches.
const SVG_DPI: f32 = 96.0;

fn fontdb() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT_REGULAR.to_vec());
        db.set_sans_serif_family(FONT_FAMILY);
        Arc::new(db)
    })
    .clone()
}

/// usvg's options for the figures: the bundled fonts only.
pub fn options() -> usvg::Options<'static> {
    usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        dpi: SVG_DPI,
        fontdb: fontdb(),
        ..usvg::Options::default()
    }
}

/// Parses an SVG document as the PDF conversion sees it.
pub fn parse(svg: &str) -> Result<usvg::Tree, String> {
    usvg::Tree::from_str(svg, &options()).map_err(|e| e.to_string())
}

/// The PDF of an SVG document.
pub fn to_pdf(svg: &str) -> Result<Vec<u8>, String> {
    let tree = parse(svg)?;
    svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions { dpi: SVG_DPI },
    )
    .map_err(|e| e.to_string())
}
