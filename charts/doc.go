// Package charts draws the dashlab figures as Apache ECharts charts that work offline:
// in GoNB notebooks, in the notebooks' exported HTML and in standalone HTML pages.
//
// Data flow one way: spec -> Build (package dash) -> engine (dash/sim) -> harness
// summary (reference/reproduce computes it, its types are package summary) -> charts.
// This package only draws: its functions take typed values (engine results, specs,
// harness summaries) and return charts, tables and figures. It never runs a simulation
// or the harness, imports nothing under reference/, and makes no verdict of its own:
// every paper-vs-simulated row it shows is a summary.Row the harness judged (a
// summary's Rows; the paper's values it draws as ticks and lines come from them), the
// geomeans of Fig. 9 and the reductions of Fig. 11 come in a summary, the expert-delivery bound comes from
// dash.SystemSpec.ExpertDelivery and the held-out GPU predictions from
// gpu.Profile.HeldOutChecks. A new chart kind goes in its own file and follows the
// same rule.
//
// The ECharts library (npm echarts@5.6.0, Apache-2.0, about 1 MB) is embedded in this
// package and never loaded from the network. It is emitted once per page, apart from the
// charts, gzip-compressed (0.45 MB) and unpacked by the browser:
//
//   - LibraryHTML gives the library as one inline <script> element.
//   - Snippet renders one go-echarts chart as an element plus its script, without the
//     library. A page or notebook shows LibraryHTML once, before its first chart. The
//     element holds the chart's static image (StaticOf: the same option drawn to SVG by
//     ECharts' server-side renderer inside goja, a Go JavaScript engine; no browser, no
//     network), which stays where scripts do not run and prints (PrintStyle); the script
//     draws the interactive chart over it once the library is there, except on a page
//     loaded to be printed (print media, as nbconvert's webpdf loads it), which keeps only
//     the static images.
//   - Bundles splits HTML into notebook outputs, each chart a MIME bundle (HTML, its SVG, a
//     text line); SliderStates puts precomputed slider states on one output.
//   - Page builds a standalone, self-contained HTML page (prose, charts, tables) with the
//     library inlined once.
//   - Table renders a figure's judged rows (summary.Row) as an HTML table.
//   - GroupedBar, Lines, Scatter and Timeline are the reusable chart builders that the
//     figure functions call: titles, axis names with units, a light theme, and an overlay
//     for the paper's published values (ticks, RefLines, Bands); GroupedBar writes a reason
//     ("does not fit") where a bar is absent. HTMLTable renders plain tables.
//
// # Figures
//
// One function per figure or table the engine produces, each taking engine results and
// returning a Figure (charts, tables, the paper-vs-simulated rows of its published
// numbers, caveats) or a chart:
//
//   - Fig1 and Table2 (the model catalogue: summary.Catalogue), Inventory (one model's
//     tensors);
//   - GPUTiming (held-out predictions from gpu.Profile.HeldOutChecks, the error studies,
//     the derived H100 PCIe), PredictionTable, ProfileSummary;
//   - Fig9a and Fig9b (a summary.Fig9 from reproduce.SummariseFig9, of the harness's
//     sweeps or a notebook's), with the paper's normalization, "does not fit" bars and
//     the harness's paired geomeans against the paper's;
//   - Fig11 (the lookahead study: []summary.LookaheadPair);
//   - RouteTimeline and RouteFigure (a traced layer, sim.Result.Timeline: the paper's Fig. 6
//     from the engine);
//   - Architecture (links, SRAM, page wave, expert-delivery bound), ArrayBandwidth;
//   - ResultTable, PhaseBreakdown, RouteTable, PlanTable (simulations and placement plans);
//   - PaperTable (every summary.Row, verdicts as the harness gave them).
//
// The bar, line, scatter and Gantt builders live in bar.go, line.go, scatter.go and
// gantt.go; what they share in common.go. The HTML report of a reproduction is assembled
// from these figures on a Page by package reference/report, above both this package and
// the harness: `dashlab reproduce --out DIR` writes DIR/index.html.
//
// Nothing here panics on bad input: go-echarts' render functions panic on template
// errors and silently emit an empty option when JSON encoding fails (NaN in the data, for
// example); Snippet turns both into errors.
//
// # Notebooks
//
// A GoNB cell runs as its own program, so "once per notebook" cannot be tracked in Go
// state. Instead a notebook displays LibraryHTML in its first display cell and each chart
// with Snippet afterwards. The notebooks' helper package (notebooks/nb, which imports
// GoNB's gonbui) does both: nb.Library() once, then nb.Show(charts.Snippet(c)),
// nb.ShowFig(fig, err) per chart or figure; this package itself does not import GoNB.
// A chart whose script runs before the library shows a message in place of the chart
// instead of failing silently.
package charts
