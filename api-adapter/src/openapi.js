'use strict'

// GET /openapi.json: an OpenAPI 3.0 document generated from the route schemas,
// so it lists exactly the routes the app serves. collectRoutes() must be
// called before any route is added (it listens to onRoute); the document is
// built on first request, when every plugin has loaded. Small on purpose:
// fastify route schemas are JSON schema, which OpenAPI 3.0 takes almost as is.

const { version } = require('../package.json')

/** @typedef {import('fastify').RouteOptions} RouteOptions */
/** @typedef {Record<string, any>} Schema */

const SKIPPED_METHODS = new Set(['HEAD', 'OPTIONS'])

/**
 * @param {import('fastify').FastifyInstance} app
 * @returns {RouteOptions[]} filled as routes are added
 */
function collectRoutes (app) {
  /** @type {RouteOptions[]} */
  const routes = []
  app.addHook('onRoute', (route) => { routes.push(route) })
  return routes
}

/**
 * JSON schema → OpenAPI 3.0 schema: `$ref: 'Name#'` points into
 * components, `$id` goes, and `type: 'null'` (no body) has no equivalent.
 * @param {any} schema
 * @returns {any}
 */
function toOpenapiSchema (schema) {
  if (Array.isArray(schema)) return schema.map(toOpenapiSchema)
  if (!schema || typeof schema !== 'object') return schema
  /** @type {Schema} */
  const out = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue
    if (key === '$ref' && typeof value === 'string') out.$ref = `#/components/schemas/${value.split('#')[0]}`
    else out[key] = toOpenapiSchema(value)
  }
  return out
}

/**
 * @param {Schema | undefined} schema an object schema of params, querystring or headers
 * @param {'path' | 'query' | 'header'} location
 */
function toParameters (schema, location) {
  if (!schema?.properties) return []
  const required = new Set(schema.required || [])
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = /** @type {Schema} */ (property)
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: toOpenapiSchema(rest)
    }
  })
}

/** @param {Schema} response fastify's schema.response */
function toResponses (response) {
  /** @type {Schema} */
  const responses = {}
  for (const [status, schema] of Object.entries(response)) {
    const code = status.replace(/xx$/, 'XX')
    const { description, ...rest } = /** @type {Schema} */ (schema)
    const text = description || (code.startsWith('2') ? 'Success' : 'FSPIOP error')
    responses[code] = rest.type === 'null'
      ? { description: text }
      : { description: text, content: { 'application/json': { schema: toOpenapiSchema(rest) } } }
  }
  return responses
}

/** @param {RouteOptions} route */
function toOperation (route) {
  const schema = /** @type {Schema} */ (route.schema || {})
  const parameters = [
    ...toParameters(schema.params, 'path'),
    ...toParameters(schema.querystring, 'query'),
    ...toParameters(schema.headers, 'header')
  ]
  /** @type {Schema} */
  const operation = {}
  if (schema.summary) operation.summary = schema.summary
  if (schema.description) operation.description = schema.description
  if (schema.tags) operation.tags = schema.tags
  if (parameters.length) operation.parameters = parameters
  if (schema.body) {
    const content = Object.fromEntries((schema.consumes || ['application/json'])
      .map((/** @type {string} */ type) => [type, { schema: toOpenapiSchema(schema.body) }]))
    operation.requestBody = { required: true, content }
  }
  operation.responses = schema.response ? toResponses(schema.response) : { default: { description: 'Response' } }
  return operation
}

/**
 * @param {{ routes: RouteOptions[], schemas: Record<string, unknown>, title?: string }} opts
 */
function toOpenapiDocument ({ routes, schemas, title = 'Switchyard FSPIOP API' }) {
  /** @type {Record<string, Schema>} */
  const paths = {}
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    for (const method of [route.method].flat()) {
      if (SKIPPED_METHODS.has(method)) continue
      paths[path] ??= {}
      paths[path][method.toLowerCase()] = toOperation(route)
    }
  }
  const components = Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, toOpenapiSchema(schema)]))
  return { openapi: '3.0.3', info: { title, version }, paths, components: { schemas: components } }
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ routes: RouteOptions[] }} opts
 */
async function openapiRoutes (app, { routes }) {
  /** @type {object | undefined} */
  let document
  const schema = {
    summary: 'This document: OpenAPI 3.0, generated from the route schemas',
    tags: ['meta'],
    response: { 200: { description: 'OpenAPI 3.0 document', type: 'object', additionalProperties: true } }
  }
  app.get('/openapi.json', { schema }, async () => {
    document ??= toOpenapiDocument({ routes, schemas: app.getSchemas() })
    return document
  })
}

module.exports = { collectRoutes, openapiRoutes }
