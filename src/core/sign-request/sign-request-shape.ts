/**
 * The sign-request representation (docs/service-interface.md) as data. `decodeSignRequest`,
 * `encodeSignRequest` and `signRequestJsonSchema` all read this description;
 * the `Shape<…>` annotations make the compiler check it against the types.
 */
import type { ParticipantId, RoleId, SignRequestId } from '../ids.js';
import { KNOWN_PARTICIPANT_STATUSES } from './participant-status.js';
import type { SavedTime } from './saved-time.js';
import {
  arrayShape,
  booleanShape,
  enumShape,
  integerShape,
  type ObjectShape,
  objectShape,
  openEnumShape,
  type Shape,
  stringShape,
} from './shape.js';
import {
  type Field,
  type FieldData,
  type FieldDataId,
  type FieldId,
  FORM_TYPES,
  type Participant,
  type Role,
  SIGN_REQUEST_STATUSES,
  type SignRequest,
} from './sign-request.js';

/** Role (docs/service-interface.md). */
export const ROLE_SHAPE: Shape<Role> = objectShape<Role>('Role', 'Role held by a participant', {
  id: { required: false, description: 'Role identifier', shape: integerShape<RoleId>() },
  name: { required: false, description: 'Role name', shape: stringShape() },
  sequence: {
    required: false,
    description: 'Position of the role in the signing order (0 or more)',
    shape: integerShape(0),
  },
});

/** FieldData (docs/service-interface.md). */
export const FIELD_DATA_SHAPE: Shape<FieldData> = objectShape<FieldData>(
  'FieldData',
  'Data a participant entered into a field',
  {
    id: {
      required: false,
      description: 'Identifier of the entered data',
      shape: integerShape<FieldDataId>(),
    },
    fieldId: {
      required: false,
      description: 'The id of an element of the sign request fields',
      shape: integerShape<FieldId>(),
    },
    imageContent: {
      required: false,
      description: 'Image content as canonical base64 (RFC 4648, no whitespace)',
      shape: stringShape('base64'),
    },
    imageMimetype: {
      required: false,
      description: 'Media type of the image, for example image/png',
      shape: stringShape('media-type'),
    },
  },
);

/** Participant (docs/service-interface.md). */
export const PARTICIPANT_SHAPE: Shape<Participant> = objectShape<Participant>(
  'Participant',
  'A participant of the sign request',
  {
    id: {
      required: false,
      description: 'Participant identifier',
      shape: integerShape<ParticipantId>(),
    },
    name: { required: false, description: 'Participant name', shape: stringShape() },
    email: {
      required: false,
      description: 'E-mail address; only checked to be non-empty without whitespace',
      shape: stringShape('email'),
    },
    status: {
      required: false,
      description: 'Participant status; known values in any letter case, other values are kept',
      shape: openEnumShape(KNOWN_PARTICIPANT_STATUSES),
    },
    role: { required: false, description: 'Role held by the participant', shape: ROLE_SHAPE },
    fieldData: {
      required: false,
      description: 'Data the participant entered into fields',
      shape: arrayShape(FIELD_DATA_SHAPE),
    },
  },
);

/** Field (docs/service-interface.md). */
export const FIELD_SHAPE: Shape<Field> = objectShape<Field>(
  'Field',
  'A place on the sign request that a role fills in',
  {
    id: { required: false, description: 'Field identifier', shape: integerShape<FieldId>() },
    roleId: {
      required: false,
      description: 'The role.id of a participant',
      shape: integerShape<RoleId>(),
    },
    required: {
      required: false,
      description: 'Whether the field must be filled',
      shape: booleanShape(),
    },
    isMasked: {
      required: false,
      description: 'Whether the field content is masked',
      shape: booleanShape(),
    },
    type: {
      required: false,
      description: 'Field type, for example signature',
      shape: stringShape(),
    },
  },
);

/** Sign request (docs/service-interface.md). */
export const SIGN_REQUEST_SHAPE: ObjectShape<SignRequest> = objectShape<SignRequest>(
  'SignRequest',
  'A form or document sent to participants for signature',
  {
    id: {
      required: true,
      description: 'Sign request identifier',
      shape: integerShape<SignRequestId>(),
    },
    name: { required: true, description: 'Sign request name', shape: stringShape() },
    status: {
      required: true,
      description: 'draft, sent, completed or declined, in any letter case',
      shape: enumShape(SIGN_REQUEST_STATUSES, true),
    },
    formType: {
      required: true,
      description: 'Form or Document, letter case significant',
      shape: enumShape(FORM_TYPES, false),
    },
    savedTime: {
      required: true,
      description: 'Time last saved, YYYY-MM-DD HH:MM:SS, time zone not published',
      shape: stringShape<SavedTime>('saved-time'),
    },
    participants: {
      required: false,
      description: 'Participants of the sign request',
      shape: arrayShape(PARTICIPANT_SHAPE),
    },
    fields: {
      required: false,
      description: 'Fields of the sign request',
      shape: arrayShape(FIELD_SHAPE),
    },
  },
);
