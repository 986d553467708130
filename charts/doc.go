// Package charts draws the dashlab figures as Apache ECharts charts that work offline:
// in GoNB notebooks, in the notebooks' exported HTML and in standalone HTML pages.
//
// The ECharts library (npm echarts@5.6.0, Apache-2.0, about 1 MB) is embedded in this
// package and never loaded from the network. It is emitted once per page, apart from the
// charts:
//
//   - LibraryHTML gives the library as one inline <script> element.
//   - Snippet renders one go-echarts chart as an element plus its script, without the
//     library. A page or notebook shows LibraryHTML once, before its first chart.
//   - Page builds a standalone, self-contained HTML page (prose, charts, tables) with the
//     library inlined once.
//   - Table renders "paper vs simulated" rows as an HTML table.
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
//   - Fig1 and Table2 (the model catalogue: reproduce.Artifacts.Models), Inventory (one
//     model's tensors);
//   - GPUTiming (held-out predictions from GPUHeldOutChecks, the error studies, the derived
//     H100 PCIe), PredictionTable, ProfileSummary;
//   - Fig9a and Fig9b (reproduce.Artifacts.Fig9 or notebook sweeps), with the paper's
//     normalization, "does not fit" bars and the paired geomeans against the paper's;
//   - RouteTimeline and RouteFigure (a traced layer, sim.Result.Timeline: the paper's Fig. 6
//     from the engine);
//   - Architecture (links, SRAM, page wave, expert-delivery bound), ArrayBandwidth;
//   - ResultTable, PhaseBreakdown, RouteTable, PlanTable (simulations and placement plans);
//   - PaperTable (every reproduce.Row, verdicts as the engine gave them).
//
// BuildReport and WriteReport assemble the HTML report of a reproduction (all of the
// above that its artifacts allow, route timelines of DefaultTraces, the full table, the
// timings): `dashlab reproduce --out DIR` writes DIR/index.html.
//
// Nothing here panics on bad input: go-echarts' render functions panic on template
// errors and silently emit an empty option when JSON encoding fails (NaN in the data, for
// example); Snippet turns both into errors.
//
// # Notebooks
//
// A GoNB cell runs as its own program, so "once per notebook" cannot be tracked in Go
// state. Instead a notebook displays LibraryHTML in its first display cell and each chart
// with Snippet afterwards; the cells call gonbui themselves (this package does not import
// GoNB, so the module does not depend on the kernel). The helper the notebooks declare:
//
//	func show(html template.HTML, err error) {
//		if err != nil {
//			panic(err) // fails the cell, and so a headless run
//		}
//		gonbui.DisplayHTML(string(html))
//		gonbui.Sync() // without it, output can be lost when the cell's program exits
//	}
//
// and then show(charts.LibraryHTML(), nil) once and show(charts.Snippet(c)) per chart.
// A chart whose script runs before the library shows a message in place of the chart
// instead of failing silently.
package charts
