{{/* Labels every object of the chart carries. */}}
{{- define "corral-agent.labels" -}}
app.kubernetes.io/name: corral-agent
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: corral
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The labels the agent's pods are selected by: fixed, so an upgrade keeps the selector. */}}
{{- define "corral-agent.selector" -}}
app.kubernetes.io/name: corral-agent
app.kubernetes.io/component: agent
{{- end -}}

{{/* The image: repository@digest when a digest is given, else repository:tag (the chart's appVersion by default). */}}
{{- define "corral-agent.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{/* k=v,... of a map, sorted by key. */}}
{{- define "corral-agent.pairs" -}}
{{- $pairs := list -}}
{{- range $k, $v := . }}{{ $pairs = append $pairs (printf "%s=%s" $k $v) }}{{ end -}}
{{- join "," $pairs -}}
{{- end -}}
