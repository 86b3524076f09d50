print("kvstore")
