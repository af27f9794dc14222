'use strict'

// Renders helm/switchyard without a helm binary, for test/unit/helm-chart.test.js:
// the Go text/template language and the Sprig and Helm functions this chart
// uses, with Helm's values handling (chart defaults merged with overrides,
// numbers as float64, values.schema.json checked first). A function it does
// not know throws, so a template that outgrows it fails loudly: extend it
// then. `helm template` stays the reference; the two gave the same objects and
// NOTES for the default and ci/ values (docs/kubernetes.md, "What was
// validated").
//
//   const { renderChart } = require('./render')
//   const { objects, notes } = renderChart({ values: { apiAdapter: { replicas: 3 } } })

const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const Ajv = require('ajv').default
const YAML = require('yaml')

const CHART_DIR = path.join(__dirname, 'switchyard')

// Go's kinds: values (YAML) numbers are float64 (JS numbers); template
// literals and int/int64/add/sub/div results are int64 (BigInts).

/** @param {unknown} v */
const isMap = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)

/** fmt's %v of a float64: shortest digits, exponent form from 1e+06 on. @param {number} n */
function goFloat (n) {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf'
  if (n === 0) return '0'
  const [mantissa, exp] = n.toExponential().split('e')
  const e = Number(exp)
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
  return String(n)
}

/** As fmt's %v prints a value. @param {unknown} v @returns {string} */
function goString (v) {
  if (v === undefined || v === null) return '<nil>'
  if (typeof v === 'number') return goFloat(v)
  if (Array.isArray(v)) return `[${v.map(goString).join(' ')}]`
  if (isMap(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goString(v[k])}`).join(' ')}]`
  return String(v)
}

/** Sprig's strval. @param {unknown} v */
const strval = (v) => (typeof v === 'string' ? v : goString(v))

/** @param {unknown} v @returns {string} Go's kind of a value */
function kindOf (v) {
  if (v === undefined || v === null) return 'invalid'
  if (typeof v === 'bigint') return 'int64'
  if (typeof v === 'number') return 'float64'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'bool'
  return Array.isArray(v) ? 'slice' : 'map'
}

/** Go template truth: false, 0, nil, "" and empty collections are false. @param {unknown} v */
function truth (v) {
  if (v === undefined || v === null || v === false || v === '' || v === 0 || v === 0n) return false
  if (Array.isArray(v)) return v.length > 0
  if (isMap(v)) return Object.keys(v).length > 0
  return true
}

/** Sprig's empty (also what default checks). @param {unknown} v */
const empty = (v) => !truth(v)

/** cast.ToInt64, as Sprig's int, int64, add, sub and div convert. @param {unknown} v @returns {bigint} */
function toInt (v) {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number') return BigInt(Math.trunc(v))
  if (typeof v === 'boolean') return v ? 1n : 0n
  if (typeof v === 'string') {
    const s = v.trim().replace(/\.0*$/, '')
    return /^[-+]?\d+$/.test(s) ? BigInt(s) : 0n
  }
  return 0n
}

/** @param {unknown} v @returns {number} */
function toFloat (v) {
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v)
  if (typeof v === 'number') return v
  if (typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)) return Number(v)
  return 0
}

/** For YAML and JSON output: int64s become numbers. @param {unknown} v @returns {any} */
function plain (v) {
  if (typeof v === 'bigint') return Number(v)
  if (Array.isArray(v)) return v.map(plain)
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
  return v
}

/** Go's basic kinds, for the comparison functions. @param {unknown} v */
const basicKind = (v) => ({ bigint: 'int', number: 'float', string: 'string', boolean: 'bool' })[typeof v]

/** @param {unknown} a @param {unknown} b */
function compare (a, b) {
  const ka = basicKind(a)
  if (!ka || ka !== basicKind(b)) throw new Error(`incompatible types for comparison: ${kindOf(a)} and ${kindOf(b)}`)
  // @ts-ignore both are the same basic kind
  return a < b ? -1 : a > b ? 1 : 0
}

/** reflect.DeepEqual over plain data. @param {any} a @param {any} b @returns {boolean} */
function deepEqual (a, b) {
  if (kindOf(a) !== kindOf(b)) return false
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isMap(a)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]))
  }
  return a === b
}

/** mergo.Merge without override, as Sprig's merge: dst keeps its non-empty values. @param {any} dst @param {any} src */
function mergeInto (dst, src) {
  for (const [k, v] of Object.entries(src || {})) {
    if (isMap(dst[k]) && isMap(v)) mergeInto(dst[k], v)
    else if (empty(dst[k])) dst[k] = v
  }
  return dst
}

/** A subset of fmt's verbs: %s %d %v %q with width and "-". @param {string} format @param {unknown[]} args */
function sprintf (format, args) {
  let i = 0
  return format.replace(/%(-?)(\d*)([sdvq%])/g, (_m, left, width, verb) => {
    if (verb === '%') return '%'
    const arg = args[i++]
    let out
    if (verb === 'd') out = typeof arg === 'bigint' ? String(arg) : `%!d(${kindOf(arg)}=${goString(arg)})`
    else if (verb === 's') out = typeof arg === 'string' || !basicKind(arg) ? goString(arg) : `%!s(${kindOf(arg)}=${goString(arg)})`
    else if (verb === 'q') out = JSON.stringify(strval(arg))
    else out = goString(arg)
    const pad = ' '.repeat(Math.max(0, Number(width || 0) - out.length))
    return left ? out + pad : pad + out
  })
}

/** @param {string} s @param {bigint | number} n */
const indent = (s, n) => {
  const pad = ' '.repeat(Number(n))
  return pad + s.replace(/\n/g, `\n${pad}`)
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Functions that take their arguments evaluated; and/or are handled lazily. */
const FUNCS = {
  // text/template
  not: (v) => !truth(v),
  eq: (a, ...bs) => bs.some((b) => (a === undefined || a === null || b === undefined || b === null ? a === b : compare(a, b) === 0)),
  ne: (a, b) => compare(a, b) !== 0,
  lt: (a, b) => compare(a, b) < 0,
  le: (a, b) => compare(a, b) <= 0,
  gt: (a, b) => compare(a, b) > 0,
  ge: (a, b) => compare(a, b) >= 0,
  len: (v) => BigInt(Array.isArray(v) || typeof v === 'string' ? v.length : Object.keys(v).length),
  index: (coll, ...keys) => keys.reduce((c, k) => {
    if (c === undefined || c === null) throw new Error('index of untyped nil')
    return Array.isArray(c) ? c[Number(k)] : c[strval(k)]
  }, coll),
  print: (...args) => args.map((a, i) => (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string' ? ' ' : '') + strval(a)).join(''),
  printf: (format, ...args) => sprintf(format, args),
  // Sprig
  default: (dflt, ...given) => (given.length === 0 || empty(given[0]) ? dflt : given[0]),
  empty,
  required: (message, v) => {
    if (v === undefined || v === null || v === '') throw new Error(message)
    return v
  },
  dict: (...kv) => {
    const out = {}
    for (let i = 0; i < kv.length; i += 2) out[strval(kv[i])] = i + 1 < kv.length ? kv[i + 1] : ''
    return out
  },
  list: (...items) => items,
  has: (needle, haystack) => Array.isArray(haystack) && haystack.some((x) => deepEqual(x, needle)),
  hasKey: (map, key) => isMap(map) && Object.prototype.hasOwnProperty.call(map, key),
  get: (map, key) => (isMap(map) && key in map ? map[key] : ''),
  set: (map, key, v) => { map[key] = v; return map },
  merge: (dst, ...srcs) => srcs.reduce(mergeInto, dst),
  toString: strval,
  toJson: (v) => JSON.stringify(plain(v ?? null)),
  toYaml: (v) => YAML.stringify(plain(v ?? null), { sortMapEntries: true, lineWidth: 0 }).replace(/\n$/, ''),
  fromYaml: (s) => {
    try {
      return YAML.parse(s) ?? {}
    } catch (err) {
      return { Error: err.message }
    }
  },
  int: toInt,
  int64: toInt,
  float64: toFloat,
  add: (...ns) => ns.reduce((sum, n) => sum + toInt(n), 0n),
  sub: (a, b) => toInt(a) - toInt(b),
  div: (a, b) => toInt(a) / toInt(b),
  kindIs: (kind, v) => kindOf(v) === kind,
  quote: (...args) => args.filter((a) => a !== undefined && a !== null).map((a) => JSON.stringify(strval(a))).join(' '),
  trim: (s) => strval(s).trim(),
  trimSuffix: (suffix, s) => (s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s),
  trunc: (n, s) => s.slice(0, Number(n)),
  replace: (from, to, s) => strval(s).split(from).join(to),
  contains: (sub, s) => strval(s).includes(sub),
  join: (sep, items) => (Array.isArray(items) ? items.map(strval).join(sep) : strval(items)),
  nindent: (n, s) => `\n${indent(s, n)}`,
  indent: (n, s) => indent(s, n),
  b64enc: (s) => Buffer.from(strval(s)).toString('base64'),
  sha256sum: (s) => crypto.createHash('sha256').update(strval(s)).digest('hex'),
  randAlphaNum: (n) => Array.from({ length: Number(n) }, () => ALPHANUM[crypto.randomInt(ALPHANUM.length)]).join(''),
  fail: (message) => { throw new Error(message) }
}

// Lexing: text and actions, with the {{- and -}} trim markers applied.

/** @param {string} src @param {string} file @returns {Array<string | { action: string, file: string, line: number }>} */
function lex (src, file) {
  const items = []
  let pos = 0
  let trimNext = false
  for (;;) {
    const open = src.indexOf('{{', pos)
    let text = src.slice(pos, open === -1 ? undefined : open)
    if (trimNext) text = text.replace(/^\s+/, '')
    let start = open + 2
    const trimPrev = open !== -1 && src[start] === '-' && /\s/.test(src[start + 1])
    if (trimPrev) {
      text = text.replace(/\s+$/, '')
      start += 2
    }
    if (text) items.push(text)
    if (open === -1) return items
    const line = src.slice(0, open).split('\n').length
    const isComment = /^\s*\/\*/.test(src.slice(start, start + 10))
    const close = isComment ? src.indexOf('}}', src.indexOf('*/', start)) : closingBraces(src, start)
    if (close === -1) throw new Error(`${file}:${line}: unclosed action`)
    let action = src.slice(start, close)
    trimNext = /\s-$/.test(action)
    if (trimNext) action = action.slice(0, -2)
    if (!isComment) items.push({ action: action.trim(), file, line })
    pos = close + 2
  }
}

/** @param {string} src @param {number} from @returns {number} where the action's }} starts, outside quotes */
function closingBraces (src, from) {
  for (let i = from; i < src.length; i++) {
    const c = src[i]
    if (c === '"' || c === '`') {
      for (i++; i < src.length && src[i] !== c; i++) if (c === '"' && src[i] === '\\') i++
    } else if (c === '}' && src[i + 1] === '}') return i
  }
  return -1
}

const TOKEN = /(\s*)(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(:=|=|\||\(|\)|,)|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])|(\$[A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)|((?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)|([A-Za-z_][A-Za-z0-9_]*))/y

/** @param {string} src @returns {Array<{ t: string, v: any, chain?: string[], spaced: boolean }>} */
function tokenize (src) {
  const tokens = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < src.length) {
    if (/^\s*$/.test(src.slice(TOKEN.lastIndex))) break
    const at = TOKEN.lastIndex
    const m = TOKEN.exec(src)
    if (!m) throw new Error(`cannot read "${src.slice(at)}"`)
    const spaced = m[1].length > 0
    const fields = (/** @type {string} */ s) => s.split('.').slice(1)
    if (m[2]) tokens.push({ t: 'lit', v: JSON.parse(m[2]), spaced })
    else if (m[3]) tokens.push({ t: 'lit', v: m[3].slice(1, -1), spaced })
    else if (m[4]) tokens.push({ t: m[4], v: m[4], spaced })
    else if (m[5]) tokens.push({ t: 'lit', v: /[.eE]/.test(m[5]) ? Number(m[5]) : BigInt(m[5]), spaced })
    else if (m[6]) tokens.push({ t: 'var', v: m[6], chain: fields(m[7] || ''), spaced })
    else if (m[8]) tokens.push({ t: 'field', v: null, chain: m[8] === '.' ? [] : fields(m[8]), spaced })
    else if (['true', 'false'].includes(m[9])) tokens.push({ t: 'lit', v: m[9] === 'true', spaced })
    else if (m[9] === 'nil') tokens.push({ t: 'lit', v: null, spaced })
    else tokens.push({ t: 'ident', v: m[9], spaced })
  }
  return tokens
}

/**
 * A pipeline: optional declaration, then commands joined by "|".
 * @param {ReturnType<typeof tokenize>} tokens
 */
function parsePipeline (tokens) {
  let decl = null
  const assign = tokens.findIndex((t) => t.t === ':=' || t.t === '=')
  if (assign !== -1 && tokens.slice(0, assign).every((t) => t.t === 'var' || t.t === ',')) {
    decl = { op: tokens[assign].t, names: tokens.slice(0, assign).filter((t) => t.t === 'var').map((t) => t.v) }
    tokens = tokens.slice(assign + 1)
  }
  let i = 0
  /** @returns {any} */
  const operand = () => {
    const tok = tokens[i++]
    if (tok.t === '(') {
      const start = i
      for (let depth = 1; depth > 0; i++) {
        if (i >= tokens.length) throw new Error('unclosed (')
        if (tokens[i].t === '(') depth++
        if (tokens[i].t === ')') depth--
      }
      const node = { t: 'sub', pipe: parsePipeline(tokens.slice(start, i - 1)), chain: [] }
      if (tokens[i]?.t === 'field' && !tokens[i].spaced) node.chain = tokens[i++].chain
      return node
    }
    if (['lit', 'var', 'field', 'ident'].includes(tok.t)) return tok
    throw new Error(`unexpected "${tok.v}"`)
  }
  const commands = [[]]
  while (i < tokens.length) {
    if (tokens[i].t === '|') {
      i++
      commands.push([])
    } else commands[commands.length - 1].push(operand())
  }
  if (commands.some((c) => c.length === 0)) throw new Error('missing command')
  return { decl, commands }
}

// Parsing: a tree of text, actions and control structures.

/**
 * @param {ReturnType<typeof lex>} items
 * @param {Map<string, any[]>} defines filled with every {{ define }}
 */
function parseTemplate (items, defines) {
  let i = 0
  /** @param {string[]} stops @returns {{ nodes: any[], stop: { word: string, rest: string, at: any } | null }} */
  const list = (stops) => {
    const nodes = []
    while (i < items.length) {
      const item = items[i++]
      if (typeof item === 'string') {
        nodes.push({ t: 'text', text: item })
        continue
      }
      const [, word, rest] = /^(\w+)\b\s*([\s\S]*)$/.exec(item.action) || [null, '', item.action]
      const at = `${item.file}:${item.line}`
      if (stops.includes(word)) return { nodes, stop: { word, rest, at } }
      const pipe = (/** @type {string} */ src) => {
        try {
          return parsePipeline(tokenize(src))
        } catch (err) {
          throw new Error(`${at}: ${err.message}`)
        }
      }
      if (word === 'if' || word === 'with') nodes.push(branch(word, pipe(rest), at))
      else if (word === 'range') nodes.push(branch('range', pipe(rest), at))
      else if (word === 'define') {
        const name = JSON.parse(rest)
        const body = list(['end'])
        if (!body.stop) throw new Error(`${at}: define "${name}" has no end`)
        defines.set(name, body.nodes)
      } else if (word === 'template') {
        const [, name, arg] = /^("(?:[^"\\]|\\.)*")\s*([\s\S]*)$/.exec(rest)
        nodes.push({ t: 'template', name: JSON.parse(name), pipe: arg ? pipe(arg) : null, at })
      } else if (['else', 'end', 'block'].includes(word)) throw new Error(`${at}: unexpected {{ ${word} }}`)
      else nodes.push({ t: 'action', pipe: pipe(item.action), at })
    }
    if (stops.length) throw new Error(`unexpected end of template, expected {{ ${stops.join(' or ')} }}`)
    return { nodes, stop: null }
  }
  /** if, with or range up to its end; "else if" nests an if that shares the end. */
  const branch = (/** @type {string} */ kind, /** @type {any} */ pipe, /** @type {string} */ at) => {
    const body = list(['else', 'end'])
    const node = { t: kind, pipe, body: body.nodes, elseBody: [], at }
    if (body.stop.word === 'else') {
      if (body.stop.rest.startsWith('if ') || body.stop.rest.startsWith('with ')) {
        const [, word, rest] = /^(\w+)\s+([\s\S]*)$/.exec(body.stop.rest)
        node.elseBody = [branch(word, parsePipeline(tokenize(rest)), body.stop.at)]
      } else {
        const elseBody = list(['end'])
        node.elseBody = elseBody.nodes
      }
    }
    return node
  }
  return list([]).nodes
}

// Execution.

class Scope {
  /** @param {Scope | null} parent */
  constructor (parent) {
    this.parent = parent
    /** @type {Map<string, unknown>} */
    this.vars = new Map()
  }

  /** @param {string} name */
  lookup (name) {
    for (let s = /** @type {Scope | null} */ (this); s; s = s.parent) if (s.vars.has(name)) return s
    throw new Error(`undefined variable: ${name}`)
  }
}

/** @param {unknown} value @param {string[]} chain */
function fieldChain (value, chain) {
  for (const key of chain) {
    if (value === undefined || value === null) throw new Error(`nil pointer evaluating interface {}.${key}`)
    if (!isMap(value)) throw new Error(`can't evaluate field ${key} in type ${kindOf(value)}`)
    value = Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined
  }
  return value
}

class Engine {
  /** @param {Map<string, any[]>} defines @param {Record<string, Function>} funcs */
  constructor (defines, funcs) {
    this.defines = defines
    this.funcs = funcs
  }

  /** @param {string} name @param {unknown} dot */
  include (name, dot) {
    const body = this.defines.get(name)
    if (!body) throw new Error(`no template "${name}" associated with template "gotpl"`)
    const scope = new Scope(null)
    scope.vars.set('$', dot)
    return this.run(body, dot, scope)
  }

  /** @param {any[]} nodes @param {unknown} dot @param {Scope} scope @returns {string} */
  run (nodes, dot, scope) {
    let out = ''
    for (const node of nodes) {
      if (node.t === 'text') {
        out += node.text
        continue
      }
      try {
        out += this.node(node, dot, scope)
      } catch (err) {
        if (!err.at) err.at = node.at
        throw err
      }
    }
    return out
  }

  /** @param {any} node @param {unknown} dot @param {Scope} scope @returns {string} */
  node (node, dot, scope) {
    if (node.t === 'action') {
      const value = this.pipeline(node.pipe, dot, scope)
      return node.pipe.decl ? '' : value === undefined || value === null ? '' : goString(value)
    }
    if (node.t === 'template') return this.include(node.name, node.pipe ? this.pipeline(node.pipe, dot, scope) : undefined)
    const inner = new Scope(scope)
    /** @type {any} */
    const value = this.pipeline({ ...node.pipe, decl: null }, dot, inner)
    if (node.t === 'if' || node.t === 'with') {
      if (node.pipe.decl) inner.vars.set(node.pipe.decl.names[0], value)
      if (!truth(value)) return this.run(node.elseBody, dot, new Scope(scope))
      return this.run(node.body, node.t === 'with' ? value : dot, inner)
    }
    // range: maps in key order, lists in index order; nil ranges over nothing.
    const entries = Array.isArray(value)
      ? value.map((v, i) => [BigInt(i), v])
      : isMap(value) ? Object.keys(value).sort().map((k) => [k, value[k]]) : []
    if (value !== undefined && value !== null && !Array.isArray(value) && !isMap(value)) throw new Error(`range can't iterate over ${goString(value)}`)
    if (entries.length === 0) return this.run(node.elseBody, dot, new Scope(scope))
    const names = node.pipe.decl?.names || []
    return entries.map(([k, v]) => {
      const iteration = new Scope(scope)
      if (names.length === 1) iteration.vars.set(names[0], v)
      if (names.length === 2) {
        iteration.vars.set(names[0], k)
        iteration.vars.set(names[1], v)
      }
      return this.run(node.body, v, iteration)
    }).join('')
  }

  /** @param {any} pipe @param {unknown} dot @param {Scope} scope */
  pipeline (pipe, dot, scope) {
    let value
    pipe.commands.forEach((/** @type {any[]} */ command, /** @type {number} */ i) => {
      value = this.command(command, dot, scope, i > 0 ? [value] : [])
    })
    if (pipe.decl) {
      const [name] = pipe.decl.names
      if (pipe.decl.op === ':=') scope.vars.set(name, value)
      else scope.lookup(name).vars.set(name, value)
    }
    return value
  }

  /** @param {any[]} command @param {unknown} dot @param {Scope} scope @param {unknown[]} piped */
  command (command, dot, scope, piped) {
    const [head, ...args] = command
    if (head.t !== 'ident') {
      if (args.length || piped.length) throw new Error(`can't give argument to non-function ${head.t}`)
      return this.operand(head, dot, scope)
    }
    const arg = (/** @type {any} */ op) => this.operand(op, dot, scope)
    if (head.v === 'and' || head.v === 'or') {
      // Short-circuit, as text/template does since Go 1.18.
      const thunks = [...args.map((op) => () => arg(op)), ...piped.map((v) => () => v)]
      let value
      for (const thunk of thunks) {
        value = thunk()
        if (truth(value) === (head.v === 'or')) return value
      }
      return value
    }
    return this.call(head.v, [...args.map(arg), ...piped])
  }

  /** @param {string} name @param {unknown[]} args */
  call (name, args) {
    const fn = this.funcs[name]
    if (!fn) throw new Error(`function "${name}" not defined (helm/render.js does not know it yet)`)
    return fn(...args)
  }

  /** @param {any} op @param {unknown} dot @param {Scope} scope */
  operand (op, dot, scope) {
    switch (op.t) {
      case 'lit': return op.v
      case 'field': return fieldChain(dot, op.chain)
      case 'var': return fieldChain(scope.lookup(op.v).vars.get(op.v), op.chain)
      case 'sub': return fieldChain(this.pipeline(op.pipe, dot, scope), op.chain)
      default: return this.call(op.v, [])
    }
  }
}

/** Helm's coalescing: maps merge key by key, null deletes, anything else replaces. @param {any} base @param {any} over */
function coalesce (base, over) {
  if (!isMap(base) || !isMap(over)) return over === undefined ? base : over
  const out = { ...base }
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k]
    else out[k] = coalesce(base[k], v)
  }
  return out
}

/** @type {Map<string, import('ajv').ValidateFunction>} compiled values.schema.json by its text */
const validators = new Map()
/** @param {string} text */
function compileSchema (text) {
  if (!validators.has(text)) validators.set(text, new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(text)))
  return validators.get(text)
}

/**
 * Renders the chart as `helm install` would on first install (or, with
 * `lookup`, against a cluster holding what lookup returns).
 * @param {{ values?: object, release?: string, namespace?: string,
 *   lookup?: (apiVersion: string, kind: string, namespace: string, name: string) => object | undefined }} [options]
 * @returns {{ objects: any[], notes: string, values: any }}
 */
function renderChart ({ values = {}, release = 'rel', namespace = 'default', lookup = () => undefined } = {}) {
  const read = (/** @type {string} */ rel) => fs.readFileSync(path.join(CHART_DIR, rel), 'utf8')
  const chart = YAML.parse(read('Chart.yaml'))
  const merged = coalesce(YAML.parse(read('values.yaml')), JSON.parse(JSON.stringify(values)))
  const validate = compileSchema(read('values.schema.json'))
  if (!validate(merged)) {
    throw new Error(`values don't meet the specifications of the schema(s): ${validate.errors.map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`).join('; ')}`)
  }
  const basePath = `${chart.name}/templates`
  const files = fs.readdirSync(path.join(CHART_DIR, 'templates')).sort()
  const defines = new Map()
  const parsed = new Map(files.map((f) => [f, parseTemplate(lex(read(`templates/${f}`), `${basePath}/${f}`), defines)]))
  for (const [f, nodes] of parsed) defines.set(`${basePath}/${f}`, nodes)
  const funcs = {
    ...FUNCS,
    include: (name, dot) => engine.include(name, dot),
    lookup: (apiVersion, kind, ns, name) => JSON.parse(JSON.stringify(lookup(apiVersion, kind, ns, name) ?? {}))
  }
  const engine = new Engine(defines, funcs)
  const top = {
    Values: merged,
    Release: { Name: release, Namespace: namespace, Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1n },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion, Type: chart.type },
    Capabilities: {},
    Files: {}
  }
  const render = (/** @type {string} */ f) => {
    try {
      return engine.include(`${basePath}/${f}`, { ...top, Template: { Name: `${basePath}/${f}`, BasePath: basePath } })
    } catch (err) {
      throw new Error(`execution error at (${err.at}): ${err.message}`)
    }
  }
  const objects = []
  for (const f of files.filter((name) => !name.startsWith('_') && name !== 'NOTES.txt')) {
    for (const doc of YAML.parseAllDocuments(render(f))) {
      if (doc.errors.length) throw new Error(`YAML parse error on ${basePath}/${f}: ${doc.errors[0].message}`)
      const object = doc.toJS()
      if (object !== null) objects.push(object)
    }
  }
  return { objects, notes: files.includes('NOTES.txt') ? render('NOTES.txt') : '', values: merged }
}

module.exports = { renderChart }
