{{/* Labels every object of the chart carries. */}}
{{- define "corral-hub.labels" -}}
app.kubernetes.io/name: corral-hub
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: corral
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The labels the hub's pods are selected by: fixed, so an upgrade keeps the selector. */}}
{{- define "corral-hub.selector" -}}
app.kubernetes.io/name: corral-hub
app.kubernetes.io/component: controllers
{{- end -}}

{{/* The image: repository@digest when a digest is given, else repository:tag (the chart's appVersion by default). */}}
{{- define "corral-hub.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}
