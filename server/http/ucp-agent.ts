/**
 * The `UCP-Agent` request header: an RFC 8941 dictionary whose `profile` member names the calling
 * platform's profile URL. Full negotiation (fetching the profile) builds on this parse.
 */
import { parseDictionary } from 'structured-headers';
import { ProtocolFailure } from './errors.ts';

export interface UcpAgent {
  profile: string;
}

export function parseUcpAgent(header: string | undefined): UcpAgent | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  let profile: unknown;
  try {
    const dict = parseDictionary(header);
    profile = dict.get('profile')?.[0];
  } catch {
    throw new ProtocolFailure(400, { code: 'invalid_profile_url', content: 'UCP-Agent must be an RFC 8941 dictionary, e.g. profile="https://platform.example/.well-known/ucp".' });
  }
  if (typeof profile !== 'string') {
    throw new ProtocolFailure(400, { code: 'invalid_profile_url', content: 'UCP-Agent needs a string member `profile` with the platform profile URL.' });
  }
  let url: URL;
  try {
    url = new URL(profile);
  } catch {
    throw new ProtocolFailure(400, { code: 'invalid_profile_url', content: `The UCP-Agent profile '${profile}' is not a URL.` });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ProtocolFailure(400, { code: 'invalid_profile_url', content: 'The UCP-Agent profile must be an https URL.' });
  }
  return { profile: url.href };
}
