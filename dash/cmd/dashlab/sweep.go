package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dashlab/dashlab/reference/sweep"
)

func init() {
	register(&command{name: "sweep", summary: "run a design-space sweep from a spec file (sharded, resumable); 'sweep merge' joins shards", run: runSweep})
}

const sweepUsage = `sweep --spec SWEEP.yaml --out FILE.{csv,jsonl,parquet} [--workers N] [--shard i/n|auto/n] [--quiet] [--dry-run]
       dashlab sweep merge OUT PARTS...`

func runSweep(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return runSweepMerge(args[1:], stdout, stderr)
	}
	fs := newFlags("sweep", sweepUsage, stderr)
	specPath := fs.String("spec", "", fmt.Sprintf("sweep spec (YAML, at most 1 MiB: base experiment, up to %d axes, zip, up to %d where conditions; at most %d points; see reference/sweeps/)",
		sweep.Bounds.Axes, sweep.Bounds.Conditions, sweep.Bounds.Points))
	out := fs.String("out", "", "output file; its extension picks the format: .csv, .jsonl or .parquet. Re-running resumes it; a file that is not this sweep's is refused")
	workers := fs.Int("workers", 0, fmt.Sprintf("simulations run at once (0: one per CPU; at most %d)", maxWorkers))
	shardFlag := fs.String("shard", "", fmt.Sprintf("run part i of n (0-based, n at most %d), or auto/n to take i from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX", sweep.MaxShards))
	quiet := fs.Bool("quiet", false, "no progress bar")
	dry := fs.Bool("dry-run", false, "validate every point and print the plan (points, shard sizes) without running")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *specPath == "" {
		return fmt.Errorf("%w: --spec is required", errUsage)
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	var shard sweep.Shard
	if *shardFlag != "" {
		var err error
		if shard, err = sweep.ParseShard(*shardFlag, nil); err != nil {
			return fmt.Errorf("%w: --shard: %v", errUsage, err)
		}
	}
	spec, err := sweep.LoadSpec(*specPath)
	if err != nil {
		return err
	}
	plan, err := sweep.CompileProgress(spec, compileProgress(stderr, *quiet))
	if err != nil {
		return err
	}
	points, err := plan.ShardPoints(shard)
	if err != nil {
		return err
	}
	if *dry {
		fmt.Fprintf(stdout, "sweep %s (%s, id %s): %d points over %v; shard %v: %d points; columns %v\n",
			plan.Name(), plan.Kind(), plan.ID(), plan.Len(), plan.Axes(), shard, len(points), plan.Header().Columns())
		return nil
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", errUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := sweep.RunOptions{Workers: *workers, Shard: shard}
	finish := func() {}
	if !*quiet {
		opts.Progress, finish = sweepProgress(stderr, plan.Name())
	}
	if afterRow != nil { // the restart test's pacing (see TestMain)
		progress := opts.Progress
		opts.Progress = func(done, total int) {
			if progress != nil {
				progress(done, total)
			}
			afterRow()
		}
	}
	start := time.Now()
	sum, err := sweep.RunFile(ctx, plan, *out, opts)
	elapsed := time.Since(start)
	finish()
	what := fmt.Sprintf("%d points", sum.Points)
	if shard.Count > 0 {
		what = fmt.Sprintf("shard %v: %d of %d points", shard, sum.Points, plan.Len())
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted: %d of the %s written to %s (%d ran now); run the same command again to resume",
				sum.Existing+sum.Ran, what, *out, sum.Ran)
		}
		return err
	}
	rate := ""
	if sum.Ran > 0 {
		rate = fmt.Sprintf(", %.1f points/s", float64(sum.Ran)/elapsed.Seconds())
	}
	fmt.Fprintf(stdout, "sweep %s: %s -> %s: %d already there, %d run (%d do not fit, %d failed) in %v%s\n",
		plan.Name(), what, *out, sum.Existing, sum.Ran, sum.DoesNotFit, sum.Failed, elapsed.Round(time.Millisecond), rate)
	return nil
}

// afterRow, when set, is called after each row a sweep writes: the tests
// set it to pace a sweep so that a signal lands mid-run whatever the
// machine's speed. Nil in dashlab itself.
var afterRow func()

func runSweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep merge", "sweep merge OUT PARTS...  (joins shard files; every point must be present exactly once)", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return fmt.Errorf("%w: want OUT and at least one part", errUsage)
	}
	out, parts := fs.Arg(0), fs.Args()[1:]
	outSt, outErr := os.Stat(out)
	for _, p := range parts {
		if st, err := os.Stat(p); p == out || err == nil && outErr == nil && os.SameFile(st, outSt) {
			return fmt.Errorf("%w: %s is both the output and a part", errUsage, out)
		}
	}
	if err := sweep.Merge(out, parts); err != nil {
		return err
	}
	t, err := sweep.Load(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d parts: %d points -> %s\n", len(parts), len(t.Rows), out)
	return nil
}

// compileProgress reports the validation of a large sweep's points on
// stderr: a line once it has taken two seconds, then every ten.
func compileProgress(stderr io.Writer, quiet bool) func(done, total int) {
	if quiet {
		return nil
	}
	start := time.Now()
	var last time.Time
	return func(done, total int) {
		now := time.Now()
		if now.Sub(start) < 2*time.Second || now.Sub(last) < 10*time.Second && done < total {
			return
		}
		last = now
		fmt.Fprintf(stderr, "sweep: validated %d of %d points\n", done, total)
	}
}
