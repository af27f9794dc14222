'use strict'

// FSPIOP data types as JSON schemas, with the patterns of the API definition
// (mojaloop/api-snippets, fspiop v1.1 and v2.0). `title` names the type: error
// descriptions use it ("condition must match the IlpCondition pattern ...").
// Where Switchyard departs from the published pattern it says so.

const { AMOUNT_PATTERN } = require('@switchyard/shared/money')

/**
 * v1.1 allows lowercase UUIDs of versions 1-5; v2.0 adds uppercase ULIDs.
 * Switchyard accepts both in every version, and UUID versions 6-8 too
 * (RFC 9562; v7 is a common choice for ids that sort by time). The anchors
 * cover both alternatives, which the v2.0 pattern's `^uuid|ulid$` does not.
 * Uppercase UUIDs stay invalid: one id must have one spelling, or a resend
 * in the other case would look like a new transfer.
 */
const CorrelationId = {
  title: 'CorrelationId',
  type: 'string',
  pattern: '^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|[0-7][0-9A-HJKMNP-TV-Z]{25})$',
  description: 'lowercase UUID (RFC 4122/9562) or uppercase ULID'
}

const FspId = { title: 'FspId', type: 'string', minLength: 1, maxLength: 32 }

const Currency = { title: 'Currency', type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 alphabetic code' }

const Amount = {
  title: 'Amount',
  type: 'string',
  pattern: AMOUNT_PATTERN.source,
  description: 'Up to 18 integer digits and 4 decimals, no trailing zeros, no more decimals than the currency has'
}

const Money = {
  title: 'Money',
  type: 'object',
  additionalProperties: false,
  required: ['currency', 'amount'],
  properties: { currency: Currency, amount: Amount }
}

const IlpPacket = { title: 'IlpPacket', type: 'string', pattern: '^[A-Za-z0-9-_]+[=]{0,2}$', minLength: 1, maxLength: 32768 }

const IlpCondition = { title: 'IlpCondition', type: 'string', pattern: '^[A-Za-z0-9-_]{43}$', maxLength: 48 }

const IlpFulfilment = { title: 'IlpFulfilment', type: 'string', pattern: '^[A-Za-z0-9-_]{43}$', maxLength: 48 }

const DateTime = {
  title: 'DateTime',
  type: 'string',
  pattern: '^(?:[1-9]\\d{3}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)|(?:[1-9]\\d(?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00)-02-29)T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:(\\.\\d{3}))(?:Z|[+-][01]\\d:[0-5]\\d)$',
  description: 'yyyy-MM-ddTHH:mm:ss.SSS plus Z or ±HH:MM'
}

const ExtensionList = {
  title: 'ExtensionList',
  type: 'object',
  additionalProperties: false,
  required: ['extension'],
  properties: {
    extension: {
      type: 'array',
      minItems: 1,
      maxItems: 16,
      items: {
        title: 'Extension',
        type: 'object',
        additionalProperties: false,
        required: ['key', 'value'],
        properties: {
          key: { title: 'ExtensionKey', type: 'string', minLength: 1, maxLength: 32 },
          value: { title: 'ExtensionValue', type: 'string', minLength: 1, maxLength: 128 }
        }
      }
    }
  }
}

const ErrorInformation = {
  title: 'ErrorInformation',
  type: 'object',
  additionalProperties: false,
  required: ['errorCode', 'errorDescription'],
  properties: {
    errorCode: { title: 'ErrorCode', type: 'string', pattern: '^[1-9]\\d{3}$' },
    errorDescription: { title: 'ErrorDescription', type: 'string', minLength: 1, maxLength: 128 },
    extensionList: ExtensionList
  }
}

/** The body of every error response, and of PUT .../error. Shared: use { $ref: 'ErrorInformationResponse#' }. */
const errorInformationResponseSchema = {
  $id: 'ErrorInformationResponse',
  type: 'object',
  additionalProperties: false,
  required: ['errorInformation'],
  properties: { errorInformation: ErrorInformation }
}

module.exports = {
  CorrelationId,
  FspId,
  Money,
  IlpPacket,
  IlpCondition,
  IlpFulfilment,
  DateTime,
  ExtensionList,
  ErrorInformation,
  errorInformationResponseSchema
}
