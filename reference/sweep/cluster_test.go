package sweep

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The Kubernetes example is an Indexed Job whose shard count agrees with
// its completions and parallelism, running a spec the image holds.
func TestKubernetesExample(t *testing.T) {
	data, err := os.ReadFile("../sweeps/cluster/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Command []string `yaml:"command"`
						Args    []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &job); err != nil {
		t.Fatal(err)
	}
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Completions != job.Spec.Parallelism {
		t.Fatalf("not an Indexed Job with completions = parallelism: %+v", job.Spec)
	}
	cmd := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	n := regexp.MustCompile(`--shard auto/(\d+)`).FindStringSubmatch(cmd)
	of := regexp.MustCompile(`-of-(\d+)\.`).FindStringSubmatch(cmd)
	if n == nil || of == nil || n[1] != of[1] || n[1] != "4" || job.Spec.Completions != 4 {
		t.Errorf("shard count, part names and completions disagree: %q, completions %d", cmd, job.Spec.Completions)
	}
	spec := regexp.MustCompile(`--spec (reference/sweeps/\S+)`).FindStringSubmatch(cmd)
	if spec == nil {
		t.Fatalf("no --spec of a shipped sweep in %q", cmd)
	}
	if c := job.Spec.Template.Spec.Containers[0].Command; len(c) == 0 || c[0] != "dashlab-entrypoint" {
		t.Errorf("the job does not run the image's entry point: %v", c)
	}
	if _, err := LoadSpec("../../" + spec[1]); err != nil {
		t.Errorf("the job's spec: %v", err)
	}
}

// The Slurm script parses (docker/ci-slurm.sh runs it for real).
func TestSlurmScriptSyntax(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if out, err := exec.Command(bash, "-n", "../sweeps/cluster/slurm-array.sh").CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v: %s", err, out)
	}
}
