/**
 * UCP capability negotiation (DIGEST §1.1), pure: no I/O, no HTTP. Given the business's
 * capability registry and the platform's (from its profile), computes the negotiated set:
 *
 * 1. keep business capabilities the platform also names;
 * 2. pick the highest version both list (versions are dates, so string order is date order);
 *    none in common → the capability is dropped;
 * 3. drop extensions with no surviving parent (a string `extends` needs that parent, an array
 *    needs at least one of them);
 * 4. repeat 3 until stable (an extension must reach a root capability through surviving
 *    parents, so extensions that only extend each other are dropped too); then drop extensions
 *    whose `requires` (protocol / capability version ranges) fails, and prune again, until stable;
 * 5. a required capability missing → `capabilities_incompatible`.
 *
 * The version check (`version_unsupported`) is separate: `negotiateVersion`.
 */

import { DomainError } from '../shared/errors.ts';

export interface VersionConstraint {
  min: string;
  max?: string;
}

export interface Requires {
  protocol?: VersionConstraint;
  capabilities?: Record<string, VersionConstraint>;
}

export interface CapabilityDecl {
  version: string;
  extends?: string | string[];
  /** The extension schema's `requires` (min/max protocol and capability versions). */
  requires?: Requires;
  [k: string]: unknown;
}

export type CapabilityRegistry = Record<string, CapabilityDecl[]>;

/** name → negotiated version. */
export type Negotiated = Map<string, string>;

/** No common version (`version_unsupported`) or a required capability missing (`capabilities_incompatible`). */
export class NegotiationError extends DomainError {
  declare readonly code: 'version_unsupported' | 'capabilities_incompatible';
  constructor(
    code: 'version_unsupported' | 'capabilities_incompatible',
    message: string,
    readonly missing: string[] = [],
  ) {
    super('invalid', code, message);
  }
}

const inRange = (v: string, c: VersionConstraint | undefined) => !c || (v >= c.min && (c.max === undefined || v <= c.max));

const parentsOf = (d: CapabilityDecl): string[] | null =>
  d.extends === undefined ? null : Array.isArray(d.extends) ? d.extends : [d.extends];

/**
 * Which protocol version applies: ours when the platform's equals it, an older one we list in
 * `supported_versions`, else `version_unsupported`.
 */
export function negotiateVersion(ours: string, platform: string, supportedVersions: Record<string, string> = {}): { version: string; profile?: string } {
  if (platform === ours) return { version: ours };
  if (Object.prototype.hasOwnProperty.call(supportedVersions, platform)) return { version: platform, profile: supportedVersions[platform] };
  const offered = [ours, ...Object.keys(supportedVersions)].join(', ');
  throw new NegotiationError('version_unsupported', `The platform profile declares UCP ${platform}; this business supports ${offered}.`);
}

export interface IntersectOptions {
  /** Negotiated protocol version (for `requires.protocol`). */
  protocolVersion: string;
  /** Capabilities the caller cannot do without; any missing → capabilities_incompatible. */
  required?: Iterable<string>;
}

/** The negotiated capabilities (name → version) with the business's declaration of each. */
export function intersectCapabilities(business: CapabilityRegistry, platform: CapabilityRegistry, opts: IntersectOptions): Negotiated {
  // Steps 1–2: common names, highest mutual version.
  const chosen = new Map<string, CapabilityDecl>();
  for (const [name, decls] of Object.entries(business)) {
    const theirs = platform[name];
    if (!Array.isArray(theirs) || theirs.length === 0) continue;
    const theirVersions = new Set(theirs.map((d) => d?.version).filter((v): v is string => typeof v === 'string'));
    const mutual = decls.filter((d) => theirVersions.has(d.version)).sort((a, b) => (a.version < b.version ? 1 : a.version > b.version ? -1 : 0));
    if (mutual.length) chosen.set(name, mutual[0]);
  }

  // Steps 3–4: prune orphans until stable, then unmet `requires`, and again until nothing changes.
  for (;;) {
    let changed = false;
    // An extension survives when a chain of surviving parents leads to a root capability (this
    // is "repeat until stable", and also drops extensions that only extend each other).
    const rooted = new Set([...chosen].filter(([, d]) => parentsOf(d) === null).map(([n]) => n));
    for (let grew = true; grew; ) {
      grew = false;
      for (const [name, decl] of chosen) {
        if (rooted.has(name)) continue;
        if (parentsOf(decl)!.some((p) => rooted.has(p))) {
          rooted.add(name);
          grew = true;
        }
      }
    }
    for (const name of [...chosen.keys()]) {
      if (!rooted.has(name)) {
        chosen.delete(name);
        changed = true;
      }
    }
    for (const [name, decl] of chosen) {
      const req = decl.requires;
      if (!req) continue;
      const ok =
        inRange(opts.protocolVersion, req.protocol) &&
        Object.entries(req.capabilities ?? {}).every(([cap, c]) => {
          const d = chosen.get(cap);
          return d !== undefined && inRange(d.version, c);
        });
      if (!ok) {
        chosen.delete(name);
        changed = true;
      }
    }
    if (!changed) break;
  }

  // Step 5.
  const missing = [...(opts.required ?? [])].filter((r) => !chosen.has(r));
  if (missing.length) {
    throw new NegotiationError(
      'capabilities_incompatible',
      `The platform and this business share no version of ${missing.join(', ')}, which this operation needs.`,
      missing,
    );
  }
  return new Map([...chosen].map(([n, d]) => [n, d.version]));
}
