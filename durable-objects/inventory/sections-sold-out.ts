// The event-wide sell-out rule over the sections' own flags: pure, so it is tested without objects.
import type { SectionConfig } from '../../contracts/event-config';

/**
 * Whether every section of the event reported itself sold out. A section that never reported has
 * seats (it starts with all of them available), so it counts as not sold out.
 *
 * @param sections the event's sections (none: true)
 * @param flags the last flag each section's object delivered, by section name
 */
export function sectionsSoldOut(sections: readonly Pick<SectionConfig, 'section'>[], flags: ReadonlyMap<string, boolean>): boolean {
  return sections.every((s) => flags.get(s.section) === true);
}
