export {
  assertBindingMatches,
  DEFAULT_PROFILE_DIR,
  ROLE_PROFILE_DIR,
  listProfiles,
  loadProfile,
  profileBinding,
  ProfileBindingSchema,
  type Profile,
} from "./loadProfile.ts";
export { boundProfileBefore28 } from "./shippedBefore28.ts";
export { parseProfileFile, type ProfileHeader } from "./parseProfileFile.ts";
export {
  ProfileChangedError,
  ProfileFormatError,
  UnknownProfileError,
  type ProfileBinding,
} from "./profileErrors.ts";
