{{/*
Names and labels.
*/}}
{{- define "switchyard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "switchyard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* A component's object name. Args: root, component. */}}
{{- define "switchyard.componentName" -}}
{{- printf "%s-%s" (include "switchyard.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "switchyard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Args: root, component. */}}
{{- define "switchyard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchyard.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Args: root, component. */}}
{{- define "switchyard.labels" -}}
helm.sh/chart: {{ include "switchyard.chart" .root }}
{{ include "switchyard.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: switchyard
{{- end }}

{{- define "switchyard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "switchyard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "switchyard.secretName" -}}
{{- default (include "switchyard.fullname" .) .Values.secret.existingSecret }}
{{- end }}

{{/* The Secret holding the admin API's token: the operator's, or the one the chart generates. */}}
{{- define "switchyard.adminTokenSecretName" -}}
{{- .Values.apiAdapter.adminAuth.existingSecret | default (include "switchyard.componentName" (dict "root" . "component" "admin-token")) }}
{{- end }}

{{/* The token's key in that Secret. */}}
{{- define "switchyard.adminTokenKey" -}}
{{- if .Values.apiAdapter.adminAuth.existingSecret }}
{{- .Values.apiAdapter.adminAuth.existingSecretKey }}
{{- else }}
{{- "ADMIN_TOKEN" }}
{{- end }}
{{- end }}

{{- define "switchyard.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion }}
{{- printf "%s:%s" .Values.image.repository (include "switchyard.envValue" $tag) }}
{{- end }}

{{/*
An environment value as the string the process reads. Helm reads YAML numbers
as float64, which toString would print as 1.048576e+06; lists are joined with
commas (the schema's `list` type).
*/}}
{{- define "switchyard.envValue" -}}
{{- if kindIs "slice" . }}
{{- join "," . }}
{{- else if and (kindIs "float64" .) (eq (float64 (int64 .)) .) }}
{{- int64 . }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/*
One setting for a component: its own env first, then config, then the schema
default given. Args: root, env, name, default.
*/}}
{{- define "switchyard.setting" -}}
{{- $env := .env | default dict }}
{{- if hasKey $env .name }}
{{- include "switchyard.envValue" (index $env .name) }}
{{- else if hasKey .root.Values.config .name }}
{{- include "switchyard.envValue" (index .root.Values.config .name) }}
{{- else }}
{{- .default }}
{{- end }}
{{- end }}

{{/*
Fails on settings that cannot work in a cluster, or that would leave the admin
API open to the network without a token. Names outside the schema are rejected
earlier, by values.schema.json.
*/}}
{{- define "switchyard.validate" -}}
{{- $loopback := list "127.0.0.1" "localhost" "::1" }}
{{- range $component, $env := dict "config" .Values.config "apiAdapter" (.Values.apiAdapter.env | default dict) }}
{{- if and (hasKey $env "API_HOST") (has (toString $env.API_HOST) $loopback) }}
{{- fail (printf "%s.API_HOST is %s: probes reach pods on their IP, so it must be 0.0.0.0 (or the pod IP)" $component $env.API_HOST) }}
{{- end }}
{{- end }}
{{- range $name, $h := .Values.handlers }}
{{- if and $h.env (hasKey $h.env "API_HOST") (has (toString $h.env.API_HOST) $loopback) }}
{{- fail (printf "handlers.%s.env.API_HOST is %s: the /health server listens on API_HOST, so it must be 0.0.0.0" $name $h.env.API_HOST) }}
{{- end }}
{{- end }}
{{- /* The chart's own Secret: a SASL mechanism needs its password, and a password needs a mechanism (the processes refuse either at start). */}}
{{- $mechanism := include "switchyard.setting" (dict "root" . "env" (dict) "name" "KAFKA_SASL_MECHANISM" "default" "none") }}
{{- if not .Values.secret.existingSecret }}
{{- if and (ne $mechanism "none") (not .Values.secret.KAFKA_SASL_PASSWORD) }}
{{- fail (printf "config.KAFKA_SASL_MECHANISM is %s but secret.KAFKA_SASL_PASSWORD is empty: set it, or name a Secret that holds it in secret.existingSecret" $mechanism) }}
{{- end }}
{{- if and (eq $mechanism "none") .Values.secret.KAFKA_SASL_PASSWORD }}
{{- fail "secret.KAFKA_SASL_PASSWORD is set but config.KAFKA_SASL_MECHANISM is not: the processes would refuse to start" }}
{{- end }}
{{- end }}
{{- $auth := .Values.apiAdapter.adminAuth }}
{{- if and .Values.apiAdapter.enabled (not $auth.enabled) (not $auth.allowUnauthenticatedNetworkAccess) }}
{{- $adminHost := include "switchyard.setting" (dict "root" . "env" .Values.apiAdapter.env "name" "ADMIN_HOST" "default" "127.0.0.1") }}
{{- if not (has $adminHost $loopback) }}
{{- fail (printf "apiAdapter.adminAuth.enabled is false and ADMIN_HOST is %s: anything that reaches the pods could move funds and change limits without a token. Keep adminAuth enabled, set ADMIN_HOST to 127.0.0.1 (then use kubectl port-forward), or accept the risk with apiAdapter.adminAuth.allowUnauthenticatedNetworkAccess: true" $adminHost) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The non-secret configuration as `name: value` pairs (ConfigMap data), STACK
always "off": Kafka and MySQL are external.
*/}}
{{- define "switchyard.configData" -}}
{{- range $name, $value := .Values.config }}
{{ $name }}: {{ include "switchyard.envValue" $value | quote }}
{{- end }}
STACK: "off"
{{- end }}

{{/*
DB_PASSWORD and KAFKA_SASL_PASSWORD from secretName and, for the api-adapter
(adminToken true) while apiAdapter.adminAuth.enabled, ADMIN_TOKEN from the
admin token Secret. The chart's own Secrets always hold both passwords (empty
when not set). In secret.existingSecret, KAFKA_SASL_PASSWORD is optional, so
that an installation without SASL need not add the key; with
KAFKA_SASL_MECHANISM set and no password, the processes refuse to start and
say so. The token is required: a missing Secret or key keeps the pod from
starting rather than leaving the admin API open (and so does an empty one:
the api-adapter refuses to serve the admin API on the pod network without a
token unless ADMIN_ALLOW_UNAUTHENTICATED, which only
allowUnauthenticatedNetworkAccess sets). Args: root, secretName, adminToken.
*/}}
{{- define "switchyard.secretEnv" -}}
{{- $auth := .root.Values.apiAdapter.adminAuth }}
- name: DB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: DB_PASSWORD
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: KAFKA_SASL_PASSWORD
      {{- if .root.Values.secret.existingSecret }}
      optional: true
      {{- end }}
{{- if and .adminToken $auth.enabled }}
- name: ADMIN_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "switchyard.adminTokenSecretName" .root }}
      key: {{ include "switchyard.adminTokenKey" .root }}
{{- else if and .adminToken $auth.allowUnauthenticatedNetworkAccess }}
- name: ADMIN_ALLOW_UNAUTHENTICATED
  value: "true"
{{- end }}
{{- end }}

{{/*
The file mode of tlsFiles.secretName's files, in decimal (YAML 1.1 and 1.2
read a leading 0 differently). A Secret volume's files belong to root: without
podSecurityContext.fsGroup the process (uid 1000) reads them only if they are
world-readable, 0444 (292); with an fsGroup the kubelet gives them that group,
and 0440 (288) is enough.
*/}}
{{- define "switchyard.tlsFilesMode" -}}
{{- if hasKey (.Values.podSecurityContext | default dict) "fsGroup" }}288{{ else }}292{{ end }}
{{- end }}

{{/*
The volumes of every pod, Deployment or hook job, and their mounts in its one
container: /tmp (the root filesystem is read-only) and, with
tlsFiles.secretName, that Secret's PEM files for KAFKA_TLS_*_FILE and
DB_TLS_*_FILE at tlsFiles.mountPath.
*/}}
{{- define "switchyard.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.tlsFiles.secretName }}
- name: tls-files
  mountPath: {{ .Values.tlsFiles.mountPath | quote }}
  readOnly: true
{{- end }}
{{- end }}

{{- define "switchyard.volumes" -}}
- name: tmp
  emptyDir: {}
{{- with .Values.tlsFiles.secretName }}
- name: tls-files
  secret:
    secretName: {{ . }}
    defaultMode: {{ include "switchyard.tlsFilesMode" $ }}
{{- end }}
{{- end }}

{{/*
Seconds the kubelet waits between starting preStop and SIGKILL: the preStop
sleep, then the process's own shutdown budget (SHUTDOWN_TIMEOUT_MS, rounded
up), then a margin. Args: root, env.
*/}}
{{- define "switchyard.terminationGrace" -}}
{{- $ms := include "switchyard.setting" (dict "root" .root "env" .env "name" "SHUTDOWN_TIMEOUT_MS" "default" "15000") | int64 }}
{{- $shutdown := .root.Values.shutdown }}
{{- add (div (add $ms 999) 1000) $shutdown.preStopSleepSeconds $shutdown.extraGraceSeconds }}
{{- end }}

{{/*
A Deployment for one process of the one image: the api-adapter or a handler.
Args: root, component, values (enabled, replicas, resources, env, autoscaling,
optional scheduling and podAnnotations), command, fixedEnv (map), ports (list
of name/port), probePort (a port name: the probes and /metrics), readyPath (the
readiness probe's path: /readyz for the api-adapter, whose participant API
needs Kafka only; /health for handlers, which need Kafka and MySQL and are
ready once they consume), startPath (the start-up probe's path, readyPath when
absent: handlers use /livez, served as soon as the process has connected to
Kafka, so that a database away at start or a long duplicate-filter load keeps
them unready instead of restarting them), adminToken (bool).
*/}}
{{- define "switchyard.deployment" -}}
{{- $root := .root }}
{{- $v := .values }}
{{- $env := $v.env | default dict }}
{{- $autoscaling := $v.autoscaling | default dict }}
{{- $labels := dict "root" $root "component" .component }}
{{- $scrape := dict }}
{{- if $root.Values.metrics.scrapeAnnotations }}
{{- range .ports }}
{{- if eq .name $.probePort }}
{{- $scrape = dict "prometheus.io/scrape" "true" "prometheus.io/port" (toString .port) "prometheus.io/path" "/metrics" }}
{{- end }}
{{- end }}
{{- end }}
{{- $podAnnotations := merge (dict) ($v.podAnnotations | default dict) ($root.Values.podAnnotations | default dict) $scrape }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "switchyard.componentName" $labels }}
  labels:
    {{- include "switchyard.labels" $labels | nindent 4 }}
spec:
  {{- if not $autoscaling.enabled }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "switchyard.selectorLabels" $labels | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "switchyard.labels" $labels | nindent 8 }}
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # A changed ConfigMap or Secret rolls the pods: env is read at start.
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- if not $root.Values.secret.existingSecret }}
        checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
        {{- end }}
        {{- with $podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "switchyard.serviceAccountName" $root }}
      # Switchyard never calls the Kubernetes API.
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      # Longer than preStop + SHUTDOWN_TIMEOUT_MS, so the batch in flight can
      # commit, produce and commit its offsets before SIGKILL.
      terminationGracePeriodSeconds: {{ include "switchyard.terminationGrace" (dict "root" $root "env" $env) }}
      containers:
        - name: {{ .component }}
          image: {{ include "switchyard.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command: {{ toJson .command }}
          envFrom:
            - configMapRef:
                name: {{ include "switchyard.componentName" (dict "root" $root "component" "config") }}
          env:
            {{- include "switchyard.secretEnv" (dict "root" $root "secretName" (include "switchyard.secretName" $root) "adminToken" .adminToken) | nindent 12 }}
            {{- range $name, $value := .fixedEnv }}
            - name: {{ $name }}
              value: {{ $value | quote }}
            {{- end }}
            {{- range $name, $value := $env }}
            - name: {{ $name }}
              value: {{ include "switchyard.envValue" $value | quote }}
            {{- end }}
          ports:
            {{- range .ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
              protocol: TCP
            {{- end }}
          {{- $probe := dict "httpGet" (dict "path" .readyPath "port" .probePort) }}
          {{- $start := dict "httpGet" (dict "path" (.startPath | default .readyPath) "port" .probePort) }}
          {{- $live := dict "httpGet" (dict "path" "/livez" "port" .probePort) }}
          startupProbe:
            {{- toYaml (merge (dict) $start $root.Values.probes.startup) | nindent 12 }}
          readinessProbe:
            {{- toYaml (merge (dict) $probe $root.Values.probes.readiness) | nindent 12 }}
          livenessProbe:
            {{- toYaml (merge (dict) $live $root.Values.probes.liveness) | nindent 12 }}
          lifecycle:
            preStop:
              # Lets endpoint controllers and load balancers stop sending
              # traffic before SIGTERM makes the process stop listening.
              exec:
                command: ["sleep", "{{ $root.Values.shutdown.preStopSleepSeconds }}"]
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          {{- with $v.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            {{- include "switchyard.volumeMounts" $root | nindent 12 }}
      volumes:
        {{- include "switchyard.volumes" $root | nindent 8 }}
      {{- with ($v.nodeSelector | default $root.Values.nodeSelector) }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with ($v.tolerations | default $root.Values.tolerations) }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with ($v.affinity | default $root.Values.affinity) }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{/*
The components that get a Deployment, as YAML: name → values. Used by the HPA
and PDB templates so both cover the api-adapter and every enabled handler.
*/}}
{{- define "switchyard.components" -}}
{{- $out := dict }}
{{- if .Values.apiAdapter.enabled }}
{{- $_ := set $out "api-adapter" .Values.apiAdapter }}
{{- end }}
{{- range $name, $h := .Values.handlers }}
{{- if $h.enabled }}
{{- $_ := set $out $name $h }}
{{- end }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/*
A pre-install/pre-upgrade hook Job running one script of the image with the
chart's configuration. Args: root, component, weight, command.
*/}}
{{- define "switchyard.hookJob" -}}
{{- $root := .root }}
{{- $labels := dict "root" $root "component" .component }}
{{- $secretName := $root.Values.secret.existingSecret | default (include "switchyard.componentName" (dict "root" $root "component" "hooks")) }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "switchyard.componentName" $labels }}
  labels:
    {{- include "switchyard.labels" $labels | nindent 4 }}
  annotations:
    # Before any Deployment is created or changed. Hooks run in weight order
    # and Helm waits for each Job to complete; a failed Job fails the release.
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-weight": {{ .weight | quote }}
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ $root.Values.jobs.backoffLimit }}
  {{- with $root.Values.jobs.activeDeadlineSeconds }}
  activeDeadlineSeconds: {{ . }}
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "switchyard.labels" $labels | nindent 8 }}
    spec:
      restartPolicy: Never
      {{- with $root.Values.jobs.serviceAccountName }}
      serviceAccountName: {{ . }}
      {{- end }}
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .component }}
          image: {{ include "switchyard.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command: {{ toJson .command }}
          # Inline, not envFrom: on first install the hooks run before the
          # release's ConfigMap and Secret exist.
          env:
            {{- range $name, $value := fromYaml (include "switchyard.configData" $root) }}
            - name: {{ $name }}
              value: {{ $value | quote }}
            {{- end }}
            {{- include "switchyard.secretEnv" (dict "root" $root "secretName" $secretName "adminToken" false) | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          {{- with $root.Values.jobs.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            {{- include "switchyard.volumeMounts" $root | nindent 12 }}
      volumes:
        {{- include "switchyard.volumes" $root | nindent 8 }}
      {{- with $root.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
