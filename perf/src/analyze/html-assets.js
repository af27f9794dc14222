'use strict'

// The page's only style and script, inlined: the report is one file that
// opens anywhere, offline. The script is optional: it adds the transfer
// picker and records what rendered (`data-bar-px` per row) for tests.

const STAGE_COLOURS = {
  api: '#4e79a7',
  prepare: '#f28e2b',
  position: '#e15759',
  fulfil: '#59a14f',
  notification: '#76b7b2',
  callback: '#b07aa1'
}

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;margin:16px 24px;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 8px}h3{font-size:14px;margin:14px 0 2px}
.meta,.line{color:#4b5563;margin:0 0 8px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
table{border-collapse:collapse;margin:0 0 8px}
th,td{padding:3px 10px;border-bottom:1px solid #e5e7eb;text-align:right;white-space:nowrap}
th{background:#f3f4f6;font-weight:600}
td:first-child,th:first-child{text-align:left}
.wf{border:1px solid #e5e7eb;border-radius:4px}
.head,.row{display:grid;grid-template-columns:300px minmax(200px,1fr) repeat(5,64px);align-items:center}
.head{background:#f3f4f6;font-weight:600;font-size:12px;height:30px;border-bottom:1px solid #d1d5db}
.row{height:26px;border-bottom:1px solid #f3f4f6}
.row:hover{background:#f9fafb}
.label{padding:0 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.label small{color:#6b7280;margin-left:6px}
.label .n{display:inline-block;width:22px;color:#9ca3af;font-size:12px}
.num{text-align:right;padding-right:8px;font-variant-numeric:tabular-nums;font-size:12px}
.track{position:relative;height:100%;margin:0 8px;background-image:linear-gradient(to right,#e5e7eb 1px,transparent 1px);background-repeat:repeat-x}
.axis{background:none}
.tick{position:absolute;top:7px;transform:translateX(-50%);font-size:11px;color:#6b7280;white-space:nowrap}
.tick:first-child{transform:none}
table.transfers td:last-child,table.transfers th:last-child{text-align:left}
.bar{position:absolute;top:5px;height:16px;min-width:2px;border-radius:2px;background:#9ca3af}
.gap{position:absolute;top:5px;height:16px;background:repeating-linear-gradient(135deg,#fde68a 0 4px,#fef3c7 4px 8px);border:1px dashed #d97706;border-radius:2px}
.queue{position:absolute;bottom:2px;height:0;border-bottom:2px dotted #6b7280}
.row.error .bar{outline:2px solid #b91c1c}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;background:#9ca3af;vertical-align:-1px}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin:6px 0 4px;font-size:12px;color:#374151}
.legend .gap,.legend .queue{position:static;display:inline-block;width:26px;vertical-align:-3px;margin-right:6px}
.legend .queue{height:8px}
.controls{margin:4px 0 8px}
${Object.entries(STAGE_COLOURS).map(([s, c]) => `[data-stage="${s}"] .bar,[data-stage="${s}"] .swatch,.swatch[data-stage="${s}"]{background:${c}}`).join('\n')}
`

const SCRIPT = `
(function () {
  var rows = document.querySelectorAll('.row')
  var rendered = 0
  for (var i = 0; i < rows.length; i++) {
    var bar = rows[i].querySelector('.bar')
    var w = bar ? bar.getBoundingClientRect().width : 0
    rows[i].setAttribute('data-bar-px', w.toFixed(1))
    if (w > 0) rendered++
  }
  document.body.setAttribute('data-rendered-rows', String(rendered))
  var pick = document.getElementById('pick')
  if (!pick) return
  pick.addEventListener('change', function () {
    var sections = document.querySelectorAll('section.waterfall')
    for (var j = 0; j < sections.length; j++) {
      sections[j].hidden = pick.value !== '' && sections[j].getAttribute('data-transfer') !== pick.value
    }
  })
})()
`

module.exports = { CSS, SCRIPT, STAGE_COLOURS }
