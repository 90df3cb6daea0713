import CollageKit
print(CollageKitVersion.string)
