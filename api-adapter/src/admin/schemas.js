'use strict'

// JSON schema pieces shared by the admin routes, so every route carries a full
// schema (body, params, query, responses) and an OpenAPI document can be
// generated from the routes later. The validator runs without type coercion
// (see app.js): a body field is exactly the JSON type the schema names.

const { isValidAmount, isKnownCurrency } = require('@switchyard/shared/money')

/**
 * Custom ajv formats, registered by app.js. `currency` is any ISO 4217 code
 * the ledger knows the minor units of; `amount` is the FSPIOP Amount type.
 */
const FORMATS = {
  currency: { validate: isKnownCurrency, text: 'a known ISO 4217 currency code' },
  amount: { validate: isValidAmount, text: 'an FSPIOP amount such as "100" or "12.5" (at most 4 decimals, no trailing zeros)' }
}

/**
 * @template {{ addFormat: (name: string, validate: (value: string) => boolean) => unknown }} A
 * @param {A} ajv
 * @returns {A}
 */
function addAdminFormats (ajv) {
  for (const [name, { validate }] of Object.entries(FORMATS)) ajv.addFormat(name, validate)
  return ajv
}

// Central-ledger's limits for a participant name (2-30), restricted to
// characters that are safe in a URL path segment and in an FSPIOP-Source header.
const name = { type: 'string', minLength: 2, maxLength: 30, pattern: '^[A-Za-z0-9_-]+$', description: 'Participant (FSP) name' }
const currency = { type: 'string', format: 'currency', description: 'ISO 4217 alphabetic code' }
const amountString = { type: 'string', format: 'amount' }
// Central-ledger takes limit values and initial positions as JSON numbers, and
// provisioning scripts send them so: whole numbers are accepted as well
// (see amounts.js for why only whole numbers).
const amountOrInteger = { type: ['string', 'integer'], format: 'amount', description: 'Amount string; a whole JSON number is also accepted' }
const money = {
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency'],
  properties: { amount: amountString, currency }
}
// Path ids are strings because the validator does not coerce; the route
// handlers turn them into numbers.
const accountId = { type: 'string', pattern: '^[1-9][0-9]{0,9}$', description: 'Account id' }
const isActiveBody = {
  type: 'object',
  additionalProperties: false,
  required: ['isActive'],
  properties: { isActive: { type: 'boolean' } }
}
const dateTime = { type: 'string', format: 'date-time' }
/** Amounts in responses: canonical decimal strings, never JSON numbers, so they stay exact. */
const amountOut = { type: 'string', description: 'Exact decimal amount; negative for positions owed to the participant' }
const flag = { type: 'integer', enum: [0, 1] }
const empty = { type: 'null', description: 'No body' }

const nameParams = { type: 'object', required: ['name'], properties: { name } }
const accountParams = { type: 'object', required: ['name', 'id'], properties: { name, id: accountId } }

const errorInformationSchema = {
  $id: 'AdminErrorInformation',
  type: 'object',
  properties: {
    errorInformation: {
      type: 'object',
      properties: {
        errorCode: { type: 'string' },
        errorDescription: { type: 'string' },
        extensionList: {
          type: 'object',
          properties: { extension: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } } } }
        }
      }
    }
  }
}

const participantSchema = {
  $id: 'AdminParticipant',
  type: 'object',
  properties: {
    name: { type: 'string' },
    id: { type: 'string', description: 'URL of the participant' },
    created: dateTime,
    isActive: flag,
    links: { type: 'object', properties: { self: { type: 'string' } } },
    accounts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          ledgerAccountType: { type: 'string' },
          currency: { type: 'string' },
          isActive: flag,
          createdDate: dateTime
        }
      }
    }
  }
}

/**
 * A route's responses plus the errorInformation body every error carries.
 * @param {Record<string, object>} responses
 */
function withErrors (responses) {
  return { ...responses, '4xx': { $ref: 'AdminErrorInformation#' }, '5xx': { $ref: 'AdminErrorInformation#' } }
}

module.exports = {
  FORMATS,
  addAdminFormats,
  name,
  currency,
  amountOrInteger,
  money,
  isActiveBody,
  dateTime,
  amountOut,
  flag,
  empty,
  nameParams,
  accountParams,
  errorInformationSchema,
  participantSchema,
  withErrors
}
