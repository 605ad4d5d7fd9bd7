print("omni")
