// @ts-check
/**
 * The fixed vocabularies (staff, signer names, kinds of templates) and the
 * catalog of companies, users, templates and roles the stream generator draws from.
 */
import { mulberry32, subSeed } from './seeded-random.js';

/** Company staff: owners and senders (and internal signers). */
const STAFF = [
  'Ada Lovelace',
  'Grace Hopper',
  'Alan Turing',
  'Katherine Johnson',
  'Edsger Dijkstra',
  'Barbara Liskov',
  'Donald Knuth',
  'Margaret Hamilton',
  'Radia Perlman',
  'Tim Berners-Lee',
  'Frances Allen',
  'John McCarthy',
  'Hedy Lamarr',
  'Dennis Ritchie',
  'Sophie Wilson',
  'Claude Shannon',
  'Annie Easley',
  'Ken Thompson',
  'Shafi Goldwasser',
  'Leslie Lamport',
  'Adele Goldberg',
  'Niklaus Wirth',
  'Karen Spärck Jones',
  'Tony Hoare',
];

/** External signers are random first/last combinations (a few non-ASCII on purpose). */
export const FIRST = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Amelia',
  'Oliver',
  'Sofia',
  'Mateo',
  'Chloé',
  'Lucas',
  'Aiko',
  'Ravi',
  'Zoë',
  'José',
  'Ingrid',
  'Kwame',
  'Mei',
  'Omar',
  'Hannah',
  'Björn',
  'Priya',
  'Diego',
  'Fatima',
  'Jonas',
];
export const LAST = [
  'Smith',
  'García',
  'Müller',
  'Tanaka',
  'Okafor',
  'Rossi',
  'Nguyen',
  'Kowalski',
  'Andersson',
  'Patel',
  'Dubois',
  'Cohen',
  'Silva',
  'Johansson',
  'Kim',
  'O’Brien',
  'Novak',
  'Haddad',
  'Fischer',
  'Moreau',
  'Lindqvist',
  'Mensah',
  'Ivanova',
  'Walker',
];

/**
 * Template kinds: name, form type, the role that names the sign request, and roles
 * as [name, sequence, internal] (internal roles are signed by company staff).
 * Roles sharing a sequence number sign in parallel.
 * @type {ReadonlyArray<{name: string, formType: 'Form' | 'Document', title: number, roles: ReadonlyArray<readonly [string, number, boolean]>}>}
 */
const KINDS = [
  {
    name: 'Mutual NDA',
    formType: 'Document',
    title: 1,
    roles: [
      ['Disclosing Party', 0, true],
      ['Receiving Party', 0, false],
    ],
  },
  {
    name: 'Employment Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['HR Manager', 0, true],
      ['Employee', 1, false],
    ],
  },
  {
    name: 'Residential Lease',
    formType: 'Document',
    title: 1,
    roles: [
      ['Landlord', 0, true],
      ['Tenant', 1, false],
      ['Guarantor', 2, false],
    ],
  },
  {
    name: 'Consulting Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['Client', 0, true],
      ['Consultant', 1, false],
    ],
  },
  {
    name: 'Vendor Onboarding Form',
    formType: 'Form',
    title: 0,
    roles: [
      ['Vendor', 0, false],
      ['Procurement Officer', 1, true],
    ],
  },
  {
    name: 'Purchase Order Approval',
    formType: 'Form',
    title: 0,
    roles: [
      ['Requester', 0, true],
      ['Approver', 1, true],
      ['Finance Controller', 2, true],
    ],
  },
  {
    name: 'Loan Application',
    formType: 'Form',
    title: 0,
    roles: [
      ['Applicant', 0, false],
      ['Co-Applicant', 0, false],
      ['Loan Officer', 1, true],
    ],
  },
  {
    name: 'Photo Release Form',
    formType: 'Form',
    title: 0,
    roles: [
      ['Subject', 0, false],
      ['Photographer', 1, true],
    ],
  },
  {
    name: 'Service Level Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['Provider', 0, true],
      ['Customer', 0, false],
    ],
  },
  {
    name: 'Sales Contract',
    formType: 'Document',
    title: 1,
    roles: [
      ['Seller', 0, true],
      ['Buyer', 1, false],
      ['Witness', 2, false],
    ],
  },
  {
    name: 'Patient Intake Form',
    formType: 'Form',
    title: 0,
    roles: [
      ['Patient', 0, false],
      ['Clinician', 1, true],
    ],
  },
  {
    name: 'Equipment Rental Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['Rental Agent', 0, true],
      ['Renter', 1, false],
    ],
  },
];

const USERS_PER_COMPANY = 4;

// ---------------------------------------------------------------------------
// Catalog: companies, users, templates, roles
// ---------------------------------------------------------------------------

/**
 * @typedef {{ id: number, name: string }} User
 * @typedef {{ id: number, name: string, sequence: number, internal: boolean }} Role
 * @typedef {{ id: number, companyId: number, name: string, formType: 'Form' | 'Document',
 *   owner: User, roles: Role[], title: number }} Template
 * @typedef {{ id: number, users: User[], templates: Template[] }} Company
 */

/**
 * The companies, their users and their templates (with roles and signing sequence)
 * that {@link generateEvents} uses for the same options. Ids are globally unique:
 * companies 1..C, users `5000 + 20·c + k`, templates from 1001 upwards, roles
 * `10·templateId + r`.
 * @param {{ seed: number, companies?: number, templatesPerCompany?: number }} options
 * @returns {Company[]}
 */
export function templateCatalog({ seed, companies = 5, templatesPerCompany = 4 }) {
  const rng = mulberry32(subSeed(seed, 1));
  /** @type {Company[]} */
  const out = [];
  let templateId = 1001;
  for (let c = 1; c <= companies; c++) {
    /** @type {User[]} */
    const users = [];
    for (let k = 0; k < USERS_PER_COMPANY; k++) {
      users.push({
        id: 5000 + 20 * c + k,
        name: STAFF[((c - 1) * USERS_PER_COMPANY + k) % STAFF.length] ?? 'Ada Lovelace',
      });
    }
    // A company uses distinct kinds (a rotated window of the list), then versions.
    const offset = Math.floor(rng() * KINDS.length);
    /** @type {Template[]} */
    const templates = [];
    for (let k = 0; k < templatesPerCompany; k++) {
      const kind = /** @type {(typeof KINDS)[number]} */ (KINDS[(offset + k) % KINDS.length]);
      const version = Math.floor(k / KINDS.length);
      const id = templateId++;
      templates.push({
        id,
        companyId: c,
        name: version === 0 ? kind.name : `${kind.name} v${version + 1}`,
        formType: kind.formType,
        owner: /** @type {User} */ (users[Math.floor(rng() * users.length)]),
        roles: kind.roles.map(([name, sequence, internal], r) => ({
          id: id * 10 + r + 1,
          name,
          sequence,
          internal,
        })),
        title: kind.title,
      });
    }
    out.push({ id: c, users, templates });
  }
  return out;
}
