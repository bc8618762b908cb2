/**
 * The links of an image besides its file that `--with` fetches, by the name `--with` takes. Apart from the selection
 * (select-images.ts) so that the command line can name them without loading Arrow.
 */

/** The links of an image besides its file that `--with` can ask for. */
export const EXTRA_LINKS = {
  thumbnail: ['thumbnail'],
  surfaces: ['surface_left_file', 'surface_right_file'],
  reduced: ['reduced_representation'],
} as const;

/** A name `--with` takes. */
export type ExtraLinkGroup = keyof typeof EXTRA_LINKS;
