//! SVG line plots of parameter sweeps (time against squad size, misses against
//! threshold, ...), drawn with `plotters`' SVG backend.
//!
//! This module owns [`Plot`], plain data any thread may build and render; rendering
//! keeps no state between calls and the same plot always gives the same bytes.
//!
//! # What a plot holds
//! An 800x500 chart: the title on top, axes with tick labels and the axis labels, one
//! line with a dot at each point per [`Series`] in a fixed palette of distinct colours
//! (wrapping after ten), an optional dashed vertical [`Plot::marker`] line labelled at
//! its top, and a legend naming every series and the marker, in the plot's emptiest
//! corner. Ranges fit the data (and the marker) with a 5% margin each side; a y range
//! of non-negative data never dips below 0, and a range of one value is widened. With
//! [`Plot::y_from_zero`] the y range reaches down to 0 whatever the data.
//!
//! # Text without fonts
//! The crate builds `plotters` without its `ttf` and `ab_glyph` features, so no font
//! file is read at build or run time. Plotters then falls back on its "naive" font,
//! which only estimates text extents (0.7 em a byte) for layout, and the SVG backend
//! writes each label as a `<text>` element (escaped) with a generic `font-family`
//! ("sans-serif"); the viewer picks the glyphs. So rendering works on a machine with no
//! fonts installed, and labels stay selectable text in the SVG. The cost: plotters
//! lays text out from estimates, so a very long label may overrun its area a little.
//!
//! # Errors
//! Every [`PlotError`] names the output: the path for [`Plot::write_svg`], "(SVG
//! string)" for [`Plot::to_svg_string`]. A plot with no points at all, or any point or
//! marker that is NaN or infinite, is refused before drawing.

use std::error::Error as StdError;
use std::io;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The canvas, in pixels.
const SIZE: (u32, u32) = (800, 500);

/// The fraction of each range's span added on both sides. Guess: keeps edge points'
/// dots clear of the axes.
const MARGIN: f64 = 0.05;

/// Series colours, in order (Tableau 10, yellow moved last for contrast on white).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7), // blue
    RGBColor(0xf2, 0x8e, 0x2b), // orange
    RGBColor(0xe1, 0x57, 0x59), // red
    RGBColor(0x59, 0xa1, 0x4f), // green
    RGBColor(0xb0, 0x7a, 0xa1), // purple
    RGBColor(0x76, 0xb7, 0xb2), // teal
    RGBColor(0x9c, 0x75, 0x5f), // brown
    RGBColor(0xff, 0x9d, 0xa7), // pink
    RGBColor(0xba, 0xb0, 0xac), // grey
    RGBColor(0xed, 0xc9, 0x48), // yellow
];

/// The marker line's colour.
const MARKER_COLOUR: RGBColor = RGBColor(0x33, 0x33, 0x33);

/// What [`Plot::to_svg_string`]'s errors name as their output.
const STRING_OUTPUT: &str = "(SVG string)";

/// One line of a plot.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its legend entry.
    pub label: String,
    /// `(x, y)` points, drawn in this order.
    pub points: Vec<(f64, f64)>,
}

/// A line plot of one or more series.
#[derive(Debug, Clone)]
pub struct Plot {
    /// Shown on top.
    pub title: String,
    /// Under the x axis.
    pub x_label: String,
    /// Beside the y axis.
    pub y_label: String,
    /// The lines, coloured in order.
    pub series: Vec<Series>,
    /// A labelled vertical line (e.g. "Eq. 4's choice" at x = 4), drawn dashed.
    pub marker: Option<(f64, String)>,
    /// Whether the y axis starts at 0 however far above it the data lie: for counts a
    /// reader compares with 0 (busy workers near 1 then read as full, not as noise
    /// magnified to the plot's height).
    pub y_from_zero: bool,
}

/// Why a plot could not be drawn or written. Each message names the output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// No series has any point.
    #[error("plot {}: nothing to draw: no series has any points", output(.path))]
    Empty {
        /// The output path; `None` for [`Plot::to_svg_string`].
        path: Option<PathBuf>,
    },
    /// A point is NaN or infinite.
    #[error(
        "plot {}: point {index} of series {series:?} is ({x}, {y}); coordinates must be finite",
        output(.path)
    )]
    NonFinite {
        /// The output path; `None` for [`Plot::to_svg_string`].
        path: Option<PathBuf>,
        /// The series' label.
        series: String,
        /// The point's index in the series.
        index: usize,
        /// The point's x.
        x: f64,
        /// The point's y.
        y: f64,
    },
    /// The marker's x is NaN or infinite.
    #[error("plot {}: marker {label:?} is at x = {x}; it must be finite", output(.path))]
    NonFiniteMarker {
        /// The output path; `None` for [`Plot::to_svg_string`].
        path: Option<PathBuf>,
        /// The marker's label.
        label: String,
        /// The marker's x.
        x: f64,
    },
    /// Plotters failed to draw.
    #[error("plot {}: drawing failed", output(.path))]
    Draw {
        /// The output path; `None` for [`Plot::to_svg_string`].
        path: Option<PathBuf>,
        /// Plotters' error.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
    /// The SVG could not be written.
    #[error("plot {}: cannot write the file", .path.display())]
    Io {
        /// The output path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

fn output(path: &Option<PathBuf>) -> String {
    match path {
        Some(path) => path.display().to_string(),
        None => STRING_OUTPUT.to_string(),
    }
}

impl Plot {
    /// Renders the plot and writes it to `path` as an SVG file.
    ///
    /// # Errors
    /// As [`Plot::to_svg_string`], naming `path`; [`PlotError::Io`] if the file cannot
    /// be written.
    pub fn write_svg(&self, path: &Path) -> Result<(), PlotError> {
        let svg = self.render().map_err(|kind| kind.at(Some(path)))?;
        std::fs::write(path, svg).map_err(|source| PlotError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Renders the plot as an SVG document.
    ///
    /// # Errors
    /// [`PlotError::Empty`] if no series has a point, [`PlotError::NonFinite`] or
    /// [`PlotError::NonFiniteMarker`] for a NaN or infinite coordinate, and
    /// [`PlotError::Draw`] if plotters fails.
    pub fn to_svg_string(&self) -> Result<String, PlotError> {
        self.render().map_err(|kind| kind.at(None))
    }

    fn render(&self) -> Result<String, Failure> {
        self.check()?;
        let ranges = Ranges::fit(self);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            self.draw(&root, &ranges).map_err(Failure::draw)?;
            root.present().map_err(Failure::draw)?;
        }
        Ok(svg)
    }

    fn check(&self) -> Result<(), Failure> {
        for series in &self.series {
            let bad = series
                .points
                .iter()
                .position(|(x, y)| !(x.is_finite() && y.is_finite()));
            if let Some(index) = bad {
                let (x, y) = series.points[index];
                return Err(Failure::NonFinite {
                    series: series.label.clone(),
                    index,
                    x,
                    y,
                });
            }
        }
        if let Some((x, label)) = &self.marker {
            if !x.is_finite() {
                return Err(Failure::NonFiniteMarker {
                    label: label.clone(),
                    x: *x,
                });
            }
        }
        if self.series.iter().all(|s| s.points.is_empty()) {
            return Err(Failure::Empty);
        }
        Ok(())
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        ranges: &Ranges,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 22))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(ranges.x.0..ranges.x.1, ranges.y.0..ranges.y.1)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()?;

        for (i, series) in self.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let line = colour.stroke_width(2);
            chart
                .draw_series(LineSeries::new(series.points.iter().copied(), line))?
                .label(series.label.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], line));
            chart.draw_series(
                series
                    .points
                    .iter()
                    .map(|&p| Circle::new(p, 3, colour.filled())),
            )?;
        }

        if let Some((x, label)) = &self.marker {
            let dashed = MARKER_COLOUR.stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new(
                    [(*x, ranges.y.0), (*x, ranges.y.1)],
                    8,
                    5,
                    dashed,
                ))?
                .label(label.as_str())
                .legend(move |(lx, ly)| {
                    DashedPathElement::new([(lx, ly), (lx + 20, ly)], 5, 3, dashed)
                });
            // Beside the line near the top, on the side with more room.
            let right_half = (x - ranges.x.0) > (ranges.x.1 - ranges.x.0) / 2.0;
            let (dx, anchor) = if right_half {
                (-5, Pos::new(HPos::Right, VPos::Top))
            } else {
                (5, Pos::new(HPos::Left, VPos::Top))
            };
            let style = ("sans-serif", 13)
                .into_font()
                .color(&MARKER_COLOUR)
                .pos(anchor);
            chart.draw_series(std::iter::once(
                EmptyElement::at((*x, ranges.y.1)) + Text::new(label.clone(), (dx, 5), style),
            ))?;
        }

        chart
            .configure_series_labels()
            .position(ranges.legend.clone())
            .margin(10)
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(0xaa, 0xaa, 0xaa))
            .draw()?;
        Ok(())
    }
}

/// A [`PlotError`] before it knows its output.
enum Failure {
    Empty,
    NonFinite {
        series: String,
        index: usize,
        x: f64,
        y: f64,
    },
    NonFiniteMarker {
        label: String,
        x: f64,
    },
    Draw(Box<dyn StdError + Send + Sync>),
}

impl Failure {
    fn draw<E: StdError + Send + Sync + 'static>(err: DrawingAreaErrorKind<E>) -> Self {
        Failure::Draw(Box::new(err))
    }

    fn at(self, path: Option<&Path>) -> PlotError {
        let path = path.map(Path::to_path_buf);
        match self {
            Failure::Empty => PlotError::Empty { path },
            Failure::NonFinite {
                series,
                index,
                x,
                y,
            } => PlotError::NonFinite {
                path,
                series,
                index,
                x,
                y,
            },
            Failure::NonFiniteMarker { label, x } => PlotError::NonFiniteMarker { path, label, x },
            Failure::Draw(source) => PlotError::Draw { path, source },
        }
    }
}

/// The axes' ranges and the legend's corner.
struct Ranges {
    x: (f64, f64),
    y: (f64, f64),
    legend: SeriesLabelPosition,
}

impl Ranges {
    /// Fits the data; the plot has been checked to have at least one finite point.
    fn fit(plot: &Plot) -> Self {
        let points = || plot.series.iter().flat_map(|s| s.points.iter().copied());
        let marker = plot.marker.as_ref().map(|(x, _)| *x);
        let x = pad(bounds(points().map(|(x, _)| x).chain(marker)), false);
        let zero = plot.y_from_zero.then_some(0.0);
        let y = pad(bounds(points().map(|(_, y)| y).chain(zero)), true);
        Ranges {
            x,
            y,
            legend: emptiest_corner(points(), x, y),
        }
    }
}

/// The least and greatest of finite, non-empty `values`.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// Widens `(lo, hi)` by [`MARGIN`] each side (or around a single value), keeping a
/// non-negative range non-negative when `floor_at_zero`.
fn pad((lo, hi): (f64, f64), floor_at_zero: bool) -> (f64, f64) {
    let span = hi - lo;
    let pad = if span > 0.0 {
        span * MARGIN
    } else if lo != 0.0 {
        lo.abs() * 0.1
    } else {
        1.0
    };
    let mut out = (lo - pad, hi + pad);
    if floor_at_zero && lo >= 0.0 && out.0 < 0.0 {
        out.0 = 0.0;
    }
    out
}

/// The corner whose quarter of the plot holds the fewest points (ties: upper right,
/// upper left, lower right, lower left).
fn emptiest_corner(
    points: impl Iterator<Item = (f64, f64)>,
    x: (f64, f64),
    y: (f64, f64),
) -> SeriesLabelPosition {
    // Corner regions: 40% of each axis. Guess: about a legend's size.
    const REGION: f64 = 0.4;
    let mut counts = [0usize; 4]; // upper right, upper left, lower right, lower left
    for (px, py) in points {
        let fx = (px - x.0) / (x.1 - x.0);
        let fy = (py - y.0) / (y.1 - y.0);
        let right = fx >= 1.0 - REGION;
        let left = fx <= REGION;
        let upper = fy >= 1.0 - REGION;
        let lower = fy <= REGION;
        for (i, inside) in [upper && right, upper && left, lower && right, lower && left]
            .into_iter()
            .enumerate()
        {
            counts[i] += usize::from(inside);
        }
    }
    let best = (0..4).min_by_key(|&i| counts[i]).unwrap_or(0);
    [
        SeriesLabelPosition::UpperRight,
        SeriesLabelPosition::UpperLeft,
        SeriesLabelPosition::LowerRight,
        SeriesLabelPosition::LowerLeft,
    ][best]
        .clone()
}

/// A tick label: at most six decimals, no trailing zeros.
fn tick(v: f64) -> String {
    let rounded = (v * 1e6).round() / 1e6;
    // -0 reads oddly on an axis.
    let rounded = if rounded == 0.0 { 0.0 } else { rounded };
    format!("{rounded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep() -> Plot {
        Plot {
            title: "Heat: time against squad size".into(),
            x_label: "squad size (workers)".into(),
            y_label: "time (Mcycles)".into(),
            series: vec![
                Series {
                    label: "cab".into(),
                    points: vec![(1.0, 9.5), (2.0, 7.0), (4.0, 5.5), (8.0, 6.0)],
                },
                Series {
                    label: "ws & <friends>".into(),
                    points: vec![(1.0, 10.0), (2.0, 9.0), (4.0, 8.7), (8.0, 8.6)],
                },
            ],
            marker: Some((4.0, "Eq. 4's choice".into())),
            y_from_zero: false,
        }
    }

    fn texts(doc: &roxmltree::Document<'_>) -> Vec<String> {
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or_default().trim().to_string())
            .collect()
    }

    #[test]
    fn renders_valid_svg_with_title_legend_and_marker() {
        let svg = sweep().to_svg_string().unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("valid XML");
        let root = doc.root_element();
        assert!(root.has_tag_name("svg"));
        assert_eq!(root.attribute("width"), Some("800"));
        assert_eq!(root.attribute("height"), Some("500"));
        let texts = texts(&doc);
        for expected in [
            "Heat: time against squad size",
            "squad size (workers)",
            "time (Mcycles)",
            "cab",
            "ws & <friends>",
            "Eq. 4's choice",
        ] {
            assert!(
                texts.iter().any(|t| t == expected),
                "{expected:?} missing from {texts:?}"
            );
        }
        // Tick labels are trimmed numbers.
        assert!(texts.iter().any(|t| t == "4"), "{texts:?}");
        // Two lines of distinct colours, each with a dot per point.
        let colours: Vec<_> = PALETTE[..2]
            .iter()
            .map(|c| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2))
            .collect();
        for colour in &colours {
            let dots = doc
                .descendants()
                .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(colour))
                .count();
            assert_eq!(dots, 4, "dots of {colour}");
            let lines = doc
                .descendants()
                .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
                .count();
            assert!(lines >= 2, "line and legend swatch of {colour}");
        }
        // The marker is dashed: many short segments of its colour.
        let marker = format!(
            "#{:02X}{:02X}{:02X}",
            MARKER_COLOUR.0, MARKER_COLOUR.1, MARKER_COLOUR.2
        );
        let dashes = doc
            .descendants()
            .filter(|n| n.attribute("stroke") == Some(marker.as_str()))
            .count();
        assert!(dashes > 5, "{dashes} dashes");
    }

    #[test]
    fn same_plot_same_bytes() {
        assert_eq!(
            sweep().to_svg_string().unwrap(),
            sweep().to_svg_string().unwrap()
        );
    }

    #[test]
    fn writes_a_file() {
        let dir = std::env::temp_dir().join(format!("locus-sim-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sweep.svg");
        sweep().write_svg(&path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        roxmltree::Document::parse(&svg).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_error_names_the_path() {
        let path = Path::new("/nonexistent-locus-dir/sub/plot.svg");
        let err = sweep().write_svg(path).unwrap_err();
        assert!(matches!(err, PlotError::Io { .. }));
        assert!(
            err.to_string()
                .contains("/nonexistent-locus-dir/sub/plot.svg"),
            "{err}"
        );
    }

    #[test]
    fn empty_plot_is_an_error() {
        let mut plot = sweep();
        plot.series.iter_mut().for_each(|s| s.points.clear());
        let err = plot.to_svg_string().unwrap_err();
        assert!(matches!(err, PlotError::Empty { path: None }));
        assert!(
            err.to_string().contains("no series has any points"),
            "{err}"
        );
        assert!(err.to_string().contains(STRING_OUTPUT), "{err}");

        plot.series.clear();
        let path = Path::new("out/empty.svg");
        let err = plot.write_svg(path).unwrap_err();
        assert!(matches!(err, PlotError::Empty { path: Some(_) }));
        assert!(err.to_string().contains("out/empty.svg"), "{err}");
        assert!(!path.exists());
    }

    #[test]
    fn non_finite_points_are_rejected() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut plot = sweep();
            plot.series[1].points[2].1 = bad;
            let err = plot.to_svg_string().unwrap_err();
            match &err {
                PlotError::NonFinite { series, index, .. } => {
                    assert_eq!(series, "ws & <friends>");
                    assert_eq!(*index, 2);
                }
                other => panic!("{other}"),
            }
            let message = err.to_string();
            assert!(message.contains("must be finite"), "{message}");
            assert!(message.contains("ws & <friends>"), "{message}");

            let mut plot = sweep();
            plot.series[0].points[0].0 = bad;
            assert!(matches!(
                plot.to_svg_string(),
                Err(PlotError::NonFinite { index: 0, .. })
            ));

            let mut plot = sweep();
            plot.marker = Some((bad, "m".into()));
            let err = plot.to_svg_string().unwrap_err();
            assert!(matches!(err, PlotError::NonFiniteMarker { .. }));
            assert!(err.to_string().contains("must be finite"), "{err}");
        }
    }

    #[test]
    fn degenerate_data_still_draws() {
        let plot = Plot {
            title: "one point".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![
                Series {
                    label: "only".into(),
                    points: vec![(3.0, 0.0)],
                },
                Series {
                    label: "none".into(),
                    points: vec![],
                },
            ],
            marker: None,
            y_from_zero: false,
        };
        let svg = plot.to_svg_string().unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert!(texts(&doc).iter().any(|t| t == "only"));

        let negative = Plot {
            series: vec![Series {
                label: "neg".into(),
                points: vec![(-2.0, -5.0), (-1.0, -7.5), (1e9, 3.0)],
            }],
            ..plot
        };
        roxmltree::Document::parse(&negative.to_svg_string().unwrap()).unwrap();
    }

    #[test]
    fn ranges_fit_with_margin() {
        assert_eq!(pad((0.0, 10.0), false), (-0.5, 10.5));
        assert_eq!(pad((0.0, 10.0), true), (0.0, 10.5));
        assert_eq!(pad((-10.0, 0.0), true), (-10.5, 0.5));
        assert_eq!(pad((5.0, 5.0), true), (4.5, 5.5));
        assert_eq!(pad((0.0, 0.0), true), (0.0, 1.0));
        let ranges = Ranges::fit(&sweep());
        assert_eq!(ranges.x, pad((1.0, 8.0), false));
        assert_eq!(ranges.y, pad((5.5, 10.0), true));
        let from_zero = Ranges::fit(&Plot {
            y_from_zero: true,
            ..sweep()
        });
        assert_eq!(from_zero.x, ranges.x);
        assert_eq!(from_zero.y, pad((0.0, 10.0), true));
    }

    #[test]
    fn legend_avoids_the_data() {
        // Rising data fills the lower left and upper right.
        let points = (0..10).map(|i| (i as f64, i as f64));
        let corner = emptiest_corner(points, (0.0, 9.0), (0.0, 9.0));
        assert!(matches!(corner, SeriesLabelPosition::UpperLeft));
    }

    #[test]
    fn ticks_are_trimmed() {
        assert_eq!(tick(4.0), "4");
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(-0.0000000001), "0");
        assert_eq!(tick(2.5), "2.5");
    }
}
