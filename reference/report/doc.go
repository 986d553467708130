// Package report lays a reproduction out as one offline HTML page: a summary, every
// figure its artifacts allow, the route timelines of one traced layer, the full
// paper-vs-simulated table and the run's timings. `dashlab reproduce --out DIR` writes
// DIR/index.html with WriteReport.
//
// It sits above both the harness and the charts: it takes a reproduce.Report (rows the
// harness judged, summaries it computed; reproduce.Options.Figures adds what only the
// figures draw) and hands each summary to the charts function that draws it. It runs
// no simulation and judges nothing.
//
// A new report section: have the harness put its summary (with its judged rows) in
// reproduce.Artifacts, write its figure function in package charts, and add one entry
// to sections in this package, in the order the page shows it.
package report
