{{/* The release's name, or nameOverride; 63 characters at most (a DNS label). */}}
{{- define "inferd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "inferd.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "inferd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "inferd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "inferd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "inferd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "inferd.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/*
The pod's termination budget: the preStop sleep (if any), the server's grace
period (serving on, not ready) and its drain (--exit-timeout-secs), and a
margin for the process to exit. Kubernetes counts terminationGracePeriodSeconds
from the start of preStop and sends SIGKILL when it runs out.
*/}}
{{- define "inferd.shutdownBudget" -}}
{{- $s := .Values.shutdown -}}
{{- add (int $s.preStopSleepSeconds) (int $s.graceSeconds) (int $s.exitTimeoutSeconds) (int $s.marginSeconds) -}}
{{- end -}}

{{/* One model repository source: a PVC, an init container, or a URL. */}}
{{- define "inferd.checkModelRepository" -}}
{{- $r := .Values.modelRepository -}}
{{- $n := 0 -}}
{{- if $r.pvc.claimName }}{{ $n = add1 $n }}{{ end -}}
{{- if $r.init.enabled }}{{ $n = add1 $n }}{{ end -}}
{{- if $r.url }}{{ $n = add1 $n }}{{ end -}}
{{- if ne (int $n) 1 -}}
{{- fail (printf "modelRepository: set exactly one of pvc.claimName, init.enabled and url (%d are set)" (int $n)) -}}
{{- end -}}
{{- if and $r.init.enabled (not $r.init.image) -}}
{{- fail "modelRepository.init.enabled: init.image is required (an image that can fill the repository: inferd's own has no shell)" -}}
{{- end -}}
{{- end -}}

{{/* The restricted Pod Security Standard, for inferd and the init container. */}}
{{- define "inferd.containerSecurityContext" -}}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
{{- end -}}
