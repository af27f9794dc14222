'use strict'

// Route schemas of the FSPIOP /transfers resource. Bodies follow the API
// definition; `additionalProperties: false` as in v2.0 (an unknown property
// is 3103, as from Mojaloop's ml-api-adapter), in every version, so that what
// the payee receives and what the duplicate check hashes is exactly the API's.

const { fspiopHeadersSchema } = require('../plugins/fspiop-headers')
const {
  CorrelationId, FspId, Money, IlpPacket, IlpCondition, IlpFulfilment, DateTime, ExtensionList
} = require('./fspiop')

const RESOURCE = 'transfers'
const MEDIA_TYPE = `application/vnd.interoperability.${RESOURCE}+json`

const TransfersPostRequest = {
  title: 'TransfersPostRequest',
  type: 'object',
  additionalProperties: false,
  required: ['transferId', 'payeeFsp', 'payerFsp', 'amount', 'ilpPacket', 'condition', 'expiration'],
  properties: {
    transferId: CorrelationId,
    payeeFsp: FspId,
    payerFsp: FspId,
    amount: Money,
    ilpPacket: IlpPacket,
    condition: IlpCondition,
    expiration: DateTime,
    extensionList: ExtensionList
  }
}

// The API definition (v1.0, v1.1 and v2.0 alike) requires only transferState
// and makes fulfilment "mandatory if the transfer has completed". A payee may
// send the hub only COMMITTED or RESERVED (a rejection is PUT .../error), and
// both need the fulfilment and the time, so all three are required here.
const TransfersIDPutResponse = {
  title: 'TransfersIDPutResponse',
  type: 'object',
  additionalProperties: false,
  required: ['transferState', 'fulfilment', 'completedTimestamp'],
  properties: {
    fulfilment: IlpFulfilment,
    completedTimestamp: DateTime,
    transferState: { title: 'TransferState', type: 'string', enum: ['COMMITTED', 'RESERVED'] },
    extensionList: ExtensionList
  }
}

const idParams = { type: 'object', required: ['id'], properties: { id: CorrelationId } }
const errors = { '4xx': { $ref: 'ErrorInformationResponse#' }, '5xx': { $ref: 'ErrorInformationResponse#' } }
const empty = (/** @type {string} */ description) => ({ description, type: 'null' })
const tags = ['transfers']

const postTransfers = {
  summary: 'Prepare a transfer (payer → hub)',
  tags,
  consumes: [MEDIA_TYPE],
  headers: fspiopHeadersSchema(RESOURCE, { contentType: true, accept: true }),
  body: TransfersPostRequest,
  response: { 202: empty('Accepted: the prepare is durably queued; the result comes as a callback'), ...errors }
}

const putTransfer = {
  summary: 'Fulfil a transfer (payee → hub)',
  tags,
  consumes: [MEDIA_TYPE],
  params: idParams,
  headers: fspiopHeadersSchema(RESOURCE, { contentType: true }),
  body: TransfersIDPutResponse,
  response: { 200: empty('OK: the fulfilment is durably queued'), ...errors }
}

const putTransferError = {
  summary: 'Report an error for a transfer (payee → hub)',
  tags,
  consumes: [MEDIA_TYPE],
  params: idParams,
  headers: fspiopHeadersSchema(RESOURCE, { contentType: true }),
  // The same body as every error answer (schemas/fspiop.js, registered by app.js).
  body: { $ref: 'ErrorInformationResponse#' },
  response: { 200: empty('OK: the error is durably queued'), ...errors }
}

const getTransfer = {
  summary: 'Ask for the state of a transfer (payer or payee → hub)',
  tags,
  params: idParams,
  // Content-Type too, though a GET has no body: FSPIOP and Mojaloop's API definition require it on every request.
  headers: fspiopHeadersSchema(RESOURCE, { contentType: true, accept: true }),
  response: { 202: empty('Accepted: the state comes as a PUT /transfers/{id} or PUT /transfers/{id}/error callback'), ...errors }
}

const patchTransfer = {
  summary: 'Not accepted from participants: PATCH /transfers/{id} only flows hub → payee (2002)',
  tags,
  response: errors
}

module.exports = { RESOURCE, MEDIA_TYPE, postTransfers, putTransfer, putTransferError, getTransfer, patchTransfer }
