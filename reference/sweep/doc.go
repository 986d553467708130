// Package sweep runs design-space sweeps of dashlab experiments: a base
// experiment (the experiment-file form of [dash.ExperimentFile]) and axes, each
// a path into the experiment with a list of values or a range with units.
//
// # Spec
//
// A sweep spec is strict YAML (an unknown key is an error that names it):
//
//	name: tread-x-page
//	base:                          # an experiment file, inline (or base_file: PATH)
//	  model: qwen3-235b-a22b
//	  system: dash
//	  workload: {batch: 4, prompt: 1024, output: 128}
//	axes:
//	  - {path: overrides.hbf.t_read, range: {from: 1us, to: 32us, factor: 2}}
//	  - {path: overrides.hbf.page_size, values: [4 KiB, 8 KiB, 16 KiB]}
//	  - {path: overrides.hbf.sram.region_size, values: [8 MiB, 16 MiB, 32 MiB]}
//	zip: [[overrides.hbf.page_size, overrides.hbf.sram.region_size]]
//	where: ["overrides.hbf.t_read >= 2us"]
//
// A path names a field of the experiment file by its YAML keys: model,
// model_file, system, gpu, profile, name, workload.* and execution.*, and any
// memory-system field under overrides.* (the keys of [dash.SystemSpec], applied
// on top of the point's system, after the base's own overrides), and the
// derived knobs under knobs.* ([Knobs]: the page size with the transfer
// regions scaled, the link rate with the lane rate scaled, the reading of
// t_R; applied last, as the builder's methods do). A point kind
// (see [Kind]) may add a section of its own (serving.* for serving runs),
// and a [KnobKind] takes overrides of knobs beyond the memory system's (the
// cluster kind of reference/clusters/clustersweep: overrides.parallel.expert,
// overrides.interconnect.scale_up.rate, ...), in the base and as axes,
// which reach its points as [Point].Settings. The
// points are the product of the axes in the order given (the first axis
// varies slowest); the axes of a zip group advance together as one; where
// conditions ("PATH OP VALUE", OP one of == != < <= > >=) keep only the points
// that meet all of them. Every value is decoded into the field's type (units
// required where the field has them; an integer field takes integers only)
// and every point the conditions keep is validated before anything runs;
// errors name the axis and the value, or the point. A spec has at most
// [Bounds].Axes axes and [Bounds].Conditions conditions, at most
// [Bounds].Points points and values of at most [Bounds].Label bytes.
//
// # Rows
//
// Running a point gives one [Row]: its index in the sweep, a stable key (a
// hash of the base experiment, the kind and the point's axis values, so it
// survives reordering and growing the axes), the sweep's id ([Plan.ID]: a
// hash of the base and every point), the axis values, the kind's
// metrics (units in the column names) and a status with an error message for
// points that do not fit or fail: a failed point never stops the sweep.
// [Plan.Run] runs points in parallel (one goroutine per simulation, so every
// row is deterministic) and hands the rows over in point order.
//
// # Files, resume and shards
//
// [Run] writes the rows to a file whose format follows its extension: .csv,
// .jsonl or .parquet. CSV and JSONL rows are appended and synced as they
// come; Parquet rows go to a JSONL journal beside the file that is converted,
// atomically, when the last point is done. Re-running the same sweep into the
// same file skips the points already there, after dropping a torn last row,
// so a sweep killed at any moment resumes into the file an uninterrupted run
// would have written; a file that is not the sweep's is refused untouched,
// and lines are read within [MaxRowBytes]. A run or a merge holds a lock on
// its output for as long as it writes it. A [Shard] i/n (n at most
// [MaxShards]) runs a deterministic 1/n of the points, balanced by the
// kind's cost estimate; [Merge] joins shard files and checks that they are
// of one sweep and that every point of it is present exactly once.
//
// From Go, [New] builds the same spec ([Builder.Axis], [Builder.Range],
// [Builder.Zip], [Builder.Where]) and [Collect] returns a [Table] whose rows
// are found by their axis values ([Table.Find]), never by index arithmetic.
package sweep
