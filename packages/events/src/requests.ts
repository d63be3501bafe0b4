// Request bodies that name scopes or message types: built once, from the list.
import { apiKeyCreateRequestSchema, endpointRequestSchemas } from '@ingest/contracts';
import type { z } from 'zod';
import { MessageFilterSchema } from './message-filter.js';
import { SUBSCRIBABLE_MESSAGE_TYPES } from './outgoing.js';
import { SCOPES } from './scopes.js';

export const ApiKeyCreateRequestSchema = apiKeyCreateRequestSchema(SCOPES);

const endpoints = endpointRequestSchemas(SUBSCRIBABLE_MESSAGE_TYPES, MessageFilterSchema);
export const EndpointCreateRequestSchema = endpoints.create;
export const EndpointUpdateRequestSchema = endpoints.update;
export type EndpointCreateRequest = z.infer<typeof EndpointCreateRequestSchema>;
export type EndpointUpdateRequest = z.infer<typeof EndpointUpdateRequestSchema>;
