module github.com/dashlab/dashlab

go 1.26

require (
	github.com/go-echarts/go-echarts/v2 v2.6.7
	gonum.org/v1/gonum v0.17.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/kr/text v0.1.0 // indirect
	golang.org/x/tools v0.30.0 // indirect
)
